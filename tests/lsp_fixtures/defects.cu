// Defective kernels for the language-server tests.
#define N_TAPS 8

__global__ void scale(float* out, float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] * 2.0 + in[i + 1];
    }
}

__global__ void taps(float* out, const float* w, float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int t = 0; t < N_TAPS; ++t) {
        acc += w[t] * x[i + t];
    }
    out[i] = acc;
}

// rolled constant loops (nvcc 13 keeps the expf loops rolled)
#define COLS 1024
#define PER_LANE (COLS / 32)

__global__ void warp_softmax(const float* __restrict__ x, float* __restrict__ y, int rows) {
  int row = blockIdx.x * blockDim.y + threadIdx.y;
  int lane = threadIdx.x;
  if (row >= rows) return;
  const float* xr = x + (size_t)row * COLS;
  float m = -INFINITY;
  for (int j = 0; j < PER_LANE; ++j) {
    m = fmaxf(m, xr[lane + 32 * j]);
  }
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  float s = 0.f;
  for (int j = 0; j < PER_LANE; ++j) {
    s += expf(xr[lane + 32 * j] - m);
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  float inv = 1.f / s;
  for (int j = 0; j < PER_LANE; ++j) {
    y[(size_t)row * COLS + lane + 32 * j] = expf(xr[lane + 32 * j] - m) * inv;
  }
}
