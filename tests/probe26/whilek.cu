// launch: grid cdiv(ds, 16), cdiv(ds, 16) block 16, 16
// sizes: ds=1000
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
__global__ void mmul(const float *a, const float *b, float *c, int ds) {
  int idx = threadIdx.x + blockDim.x * blockIdx.x;
  int idy = threadIdx.y + blockDim.y * blockIdx.y;
  if ((idx < ds) && (idy < ds)) {
    float temp = 0;
    for (int i = 0; i < ds; i++)
      temp += a[idy * ds + i] * b[i * ds + idx];
    c[idy * ds + idx] = temp;
  }
}
