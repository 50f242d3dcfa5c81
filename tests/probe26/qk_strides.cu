// launch: grid cdiv(T, 16), cdiv(T, 16), H block 16, 16
// sizes: H=4 T=100 D=32 sq_h=3200 sq_t=32 sk_h=3200 sk_t=32
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// scores over tensors given by their strides (PyTorch's layout: head stride, time stride; d contiguous)
__global__ void scores_strided(const float* q, const float* k, float* s, int H, int T, int D,
                               int sq_h, int sq_t, int sk_h, int sk_t) {
  int h = blockIdx.z;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < T && j < T) {
    const float* qi = q + h * sq_h + i * sq_t;
    const float* kj = k + h * sk_h + j * sk_t;
    float acc = 0.f;
    for (int d = 0; d < D; ++d) acc += qi[d] * kj[d];
    s[(h * T + i) * T + j] = acc;
  }
}
