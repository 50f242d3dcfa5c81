// launch: grid cdiv(C, 256) block 256
// sizes: R=1000 C=3000
// expect: column
__global__ void colsum(const float* __restrict__ X, float* __restrict__ out, int R, int C) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= C) return;
  float s = 0.0f;
#pragma unroll 4
  for (int r = 0; r < R; ++r) s += X[r * C + c];
  out[c] = s;
}
