// launch: grid cdiv(R, 128) block 128
// sizes: R=5000 C=1000
// expect: row-warp|row-block
// row sums except the first row
__global__ void rowsum_skip(const float* A, float* s, int R, int C) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= 1 && r < R) {
    float t = 0.f;
    for (int c = 0; c < C; ++c) t += A[r * C + c];
    s[r] = t;
  }
}
