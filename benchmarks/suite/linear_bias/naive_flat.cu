// out = inp weight^T + bias over a flat index, the output channel on the fast index.
__global__ void linear_forward(float* out, const float* inp, const float* weight, const float* bias, int N, int C,
                               int OC) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N * OC) {
    const int n = idx / OC, o = idx % OC;
    float s = 0.f;
    for (int c = 0; c < C; ++c) s += inp[n * C + c] * weight[o * C + c];
    out[idx] = s + bias[o];
  }
}
