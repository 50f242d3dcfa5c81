// launch: {"grid": ["N"], "block": [512]}
// Cross-entropy, best.cu with the running max and sum updated once per batch of 8 float4 loads: the
// batch's max is taken first (a tree over its 32 values), the sum rescaled at most once, then the 32
// exponentials added. The max needs every load of the batch, so all 8 are issued before the first use
// (best.cu's SASS keeps only 4 in flight: nvcc interleaves the rest with the exponentials to stay at 32
// registers); 64 KB per block in flight, and one compare-and-branch per batch instead of 8.
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
__global__ void __launch_bounds__(512) crossentropy_forward(float* __restrict__ losses,
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
    float mm = m;
#pragma unroll
    for (int u = 0; u < U; ++u) mm = fmaxf(mm, fmaxf(fmaxf(v[u].x, v[u].y), fmaxf(v[u].z, v[u].w)));
    if (mm > m) {
      s *= __expf(m - mm);
      m = mm;
    }
    float e = 0.0f;
#pragma unroll
    for (int u = 0; u < U; ++u) e += __expf(v[u].x - m) + __expf(v[u].y - m) + __expf(v[u].z - m) + __expf(v[u].w - m);
    s += e;
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
