// launch: grid cdiv(C, 16), cdiv(OC, 16) block 16, 16
// sizes: N=200 C=64 OC=48
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// the weight gradient of a linear layer: dW[o][c] += sum over n of dout[n][o] * inp[n][c]
__global__ void linear_dweight(float* dW, const float* dout, const float* inp, int N, int C, int OC) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int o = blockIdx.y * blockDim.y + threadIdx.y;
  if (o < OC && c < C) {
    float g = 0.f;
    for (int n = 0; n < N; ++n) g += dout[n * OC + o] * inp[n * C + c];
    dW[o * C + c] += g;
  }
}
