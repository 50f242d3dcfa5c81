// launch: grid cdiv(BH * T * D, 256) block 256
// sizes: BH=6 T=100 D=32
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// out = P V per (batch-head, t, d), a flat index, the sum up to t (causal)
__global__ void pv_flat(const float* P, const float* V, float* O, int BH, int T, int D) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= BH * T * D) return;
  int d = idx % D;
  int t = (idx / D) % T;
  int bh = idx / (D * T);
  const float* p = P + ((size_t)bh * T + t) * T;
  const float* v = V + (size_t)bh * T * D;
  float o = 0.f;
  for (int u = 0; u <= t; ++u) o += p[u] * v[u * D + d];
  O[idx] = o;
}
