// launch: {"grid": ["N"], "block": [256]}
// Cross-entropy, best.cu with batches of 16 float4 loads per thread and half the threads per row (one
// idea: the bytes in flight held by fewer threads): blocks of 256, batches of 16 packs (an int-counted
// loop), 56 registers (launch bounds 256 x 4, no spill): 4 blocks (rows) per SM as best.cu, but 1024
// threads per SM instead of 2048; at 56 registers the SASS cannot keep all 16 packs (64 registers) in
// flight, perhaps 8 to 10 per thread (130 to 160 KB per SM against best.cu's 4 of 8, 128 KB); not
// checked in the SASS (no disassembler here). A row (12564 packs at V = 50257) is 3 batches of 16 and
// a leftover of 20 packs; the large size's 1024 rows are 1.94 waves of 528 as best.cu's.
__device__ __forceinline__ void online4(float& m, float& s, float4 v) {
  const float mm = fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w));
  if (mm > m) {
    s *= __expf(m - mm);
    m = mm;
  }
  s += __expf(v.x - m) + __expf(v.y - m) + __expf(v.z - m) + __expf(v.w - m);
}
__device__ __forceinline__ void online1(float& m, float& s, float v) {
  if (v > m) {
    s *= __expf(m - v);
    m = v;
  }
  s += __expf(v - m);
}
__device__ __forceinline__ void merge(float& m, float& s, float om, float os) {
  const float mm = fmaxf(m, om);
  if (mm == -INFINITY) return;
  s = s * __expf(m - mm) + os * __expf(om - mm);
  m = mm;
}
#define U 16
#define LOAD(p) __ldcs(p)  // read once: streaming
__global__ void __launch_bounds__(256, 4) crossentropy_forward(float* __restrict__ losses,
                                                             const float* __restrict__ logits,
                                                             const int* __restrict__ targets, int N, int V) {
  __shared__ float pm[32], ps[32];
  const int row = blockIdx.x;
  if (row >= N) return;
  const float* x = logits + (size_t)row * V;
  const int head = min(V, (int)((16 - ((size_t)x & 15)) & 15) / 4);
  const int nvec = (V - head) / 4;
  const int tail = head + nvec * 4;
  const float4* xv = reinterpret_cast<const float4*>(x + head);
  const int t = threadIdx.x, nt = blockDim.x;
  float m = -INFINITY, s = 0.0f;
  int i = t;
  for (; i + (U - 1) * nt < nvec; i += U * nt) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = LOAD(xv + i + u * nt);
#pragma unroll
    for (int u = 0; u < U; ++u) online4(m, s, v[u]);
  }
  for (; i < nvec; i += nt) online4(m, s, LOAD(xv + i));
  if (t < head) online1(m, s, x[t]);
  for (int j = tail + t; j < V; j += nt) online1(m, s, x[j]);
  for (int o = 16; o > 0; o >>= 1) merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
  const int warp = t / 32, lane = t % 32;
  if (lane == 0) { pm[warp] = m; ps[warp] = s; }
  __syncthreads();
  if (warp == 0) {
    m = lane < nt / 32 ? pm[lane] : -INFINITY;
    s = lane < nt / 32 ? ps[lane] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
    if (lane == 0) losses[row] = logf(s) + m - x[targets[row]];
  }
}
