// launch: grid cdiv(n, 256) block 256
// sizes: n=100000
// expect: scan-library
// naive inclusive scan: each thread sums everything up to its element
__global__ void naive_scan(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j <= i; ++j) s += in[j];
    out[i] = s;
  }
}
