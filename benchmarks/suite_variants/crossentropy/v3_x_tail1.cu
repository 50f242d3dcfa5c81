// launch: {"grid": ["N"], "block": [512]}
// Cross-entropy, best.cu with the ragged part of each row in one batch issued first (one idea: fewer
// round trips per block). best.cu runs its full batches of 8 packs, then the leftover packs one at a
// time, then the head scalars, then the tail scalars: at V = 50257, 3 batches and up to 3 more
// dependent round trips (the leftover's 276 packs, the head, the tail) at the block's end, with
// few loads in flight. Here the leftover packs (fewer than 8 x 512), the head and the tail are
// loaded as one predicated batch before the full batches (two halves of 4 packs at most, the
// second only where a thread has more than 4, since 8 predicated packs spill at 32 registers; the
// full batches an int count, the same for every thread): at V = 50257 4 round trips per block, none
// of them a lone scalar at the end. 32 registers (launch bounds 512 x 4), 4 blocks per SM as best.cu.
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
#define U 8
#define LOAD(p) __ldcs(p)  // read once: streaming
__global__ void __launch_bounds__(512, 4) crossentropy_forward(float* __restrict__ losses,
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
  const int full = nvec / (U * nt);  // full batches, the same count for every thread
  const int rag = full * U * nt;      // the first pack after them
  float m = -INFINITY, s = 0.0f;
  {  // the ragged part first, as one batch: the last packs (fewer than U * nt), the head and tail scalars
    const int cnt = nvec - rag - t > 0 ? (nvec - rag - t + nt - 1) / nt : 0;  // this thread's packs (< U + 1)
    const float4* q = xv + rag + t;
    const float h = t < head ? x[t] : 0.0f;
    const float e = tail + t < V ? x[tail + t] : 0.0f;
#pragma unroll
    for (int g = 0; g < U; g += U / 2) {  // two halves (the second only where a thread has more than U / 2)
      if (g >= cnt) break;
      float4 v[U / 2];
#pragma unroll
      for (int u = 0; u < U / 2; ++u) {
        v[u] = make_float4(0.f, 0.f, 0.f, 0.f);
        if (g + u < cnt) v[u] = LOAD(q + (g + u) * nt);
      }
#pragma unroll
      for (int u = 0; u < U / 2; ++u)
        if (g + u < cnt) online4(m, s, v[u]);
    }
    if (t < head) online1(m, s, h);
    if (tail + t < V) online1(m, s, e);
  }
  for (int k = 0, i = t; k < full; ++k, i += U * nt) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = LOAD(xv + i + u * nt);
#pragma unroll
    for (int u = 0; u < U; ++u) online4(m, s, v[u]);
  }
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
