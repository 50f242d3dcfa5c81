// launch: grid cdiv(T, 16), cdiv(T, 16), B * H block 16, 16
// sizes: B=2 H=3 T=100 D=32
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
__global__ void qk_bh(const float* q, const float* k, float* s, int B, int H, int T, int D) {
  int bh = blockIdx.z;
  int b = bh / H, h = bh % H;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < T && j < T) {
    const float* qi = q + (((size_t)b * H + h) * T + i) * D;
    const float* kj = k + (((size_t)b * H + h) * T + j) * D;
    float acc = 0.f;
    for (int d = 0; d < D; ++d) acc += qi[d] * kj[d];
    s[(((size_t)b * H + h) * T + i) * T + j] = acc;
  }
}
