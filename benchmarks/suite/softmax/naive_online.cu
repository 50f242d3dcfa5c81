// Row softmax, one thread per row, with the online (running max, rescaled sum) first pass.
__global__ void softmax_forward(float* out, const float* inp, int N, int C) {
  const unsigned r = blockDim.x * blockIdx.x + threadIdx.x;
  if (r >= N) return;
  const size_t base = (size_t)r * C;
  float m = -INFINITY;
  float s = 0.0f;
  for (int j = 0; j < C; ++j) {
    const float v = inp[base + j];
    const float m_new = fmaxf(m, v);
    s = s * expf(m - m_new) + expf(v - m_new);
    m = m_new;
  }
  const float inv = 1.0f / s;
  for (int j = 0; j < C; ++j) out[base + j] = expf(inp[base + j] - m) * inv;
}
