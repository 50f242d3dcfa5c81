// launch: {"grid": [528], "block": [256]}
// Cross-entropy, best.cu's online pass over equal flat chunks instead of a block per row: one wave of
// 528 blocks (4 per SM on 132 SMs) splits the N x V logits into equal runs of 16-byte packs, so every
// block streams the same bytes at every size (1.94 rows at the large size, 0.49 at the small) with no
// second wave and no SM left with one row while others have two. A block takes the rows its run
// meets one after another (8 float4 loads in flight per thread, a last predicated batch); a row split
// between blocks leaves each block's max and sum in a module buffer, and the last of them to arrive (a
// per-row counter, reset by that block) merges them in a fixed order and writes the loss:
// deterministic, one launch, no atomics on data.
#define NT 256        // threads per block
#define U 8           // float4 loads in flight per thread
#define MAX_RUNS 4096  // blocks the buffers hold (more blocks than this: the rest stay idle)
#define LOAD(p) __ldcs(p)  // read once: streaming

__device__ float2 xf_first[MAX_RUNS];    // a block's max and sum over its first row's part
__device__ float2 xf_last[MAX_RUNS];     // ... over its last row's part (the whole run if it is in one row)
__device__ unsigned xf_count[MAX_RUNS];  // per block: blocks done with the row that ends past its run

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

// the block's max and sum, in every thread (pm, ps: free again on return)
__device__ __forceinline__ void block_merge(float& m, float& s, float* pm, float* ps) {
  for (int o = 16; o > 0; o >>= 1) merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) { pm[warp] = m; ps[warp] = s; }
  __syncthreads();
  m = lane < NT / 32 ? pm[lane] : -INFINITY;
  s = lane < NT / 32 ? ps[lane] : 0.0f;
  for (int o = 16; o > 0; o >>= 1) merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
  __syncthreads();
}

__global__ void __launch_bounds__(NT) crossentropy_forward(float* __restrict__ losses,
                                                           const float* __restrict__ logits,
                                                           const int* __restrict__ targets, int N, int V) {
  __shared__ float pm[NT / 32], ps[NT / 32];
  __shared__ bool last;
  const int runs = min((int)gridDim.x, MAX_RUNS), b = blockIdx.x, t = threadIdx.x;
  if (b >= runs) return;
  const long long total = (long long)N * V;
  const long long run = ((total + 3) / 4 + runs - 1) / runs * 4;  // elements per block, whole packs
  const long long e0 = min(total, b * run), e1 = min(total, e0 + run);
  for (long long r = e0 / V; r * V < e1; ++r) {
    // this block's part of row r: [a, c) of the flat logits; packs from the first 16-byte boundary
    const long long a = max(e0, r * V), c = min(e1, (r + 1) * V);
    const long long a4 = min(c, (a + 3) / 4 * 4), c4 = max(a4, c / 4 * 4);
    const float4* xv = reinterpret_cast<const float4*>(logits + a4);
    const int n = (int)((c4 - a4) / 4);
    float m = -INFINITY, s = 0.0f;
    int i = t;
    for (; i + (U - 1) * NT < n; i += U * NT) {
      float4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = LOAD(xv + i + u * NT);
#pragma unroll
      for (int u = 0; u < U; ++u) online4(m, s, v[u]);
    }
    if (i < n) {  // the last packs, also at once (predicated)
      float4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (i + u * NT < n) v[u] = LOAD(xv + i + u * NT);
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (i + u * NT < n) online4(m, s, v[u]);
    }
    if (a + t < a4) online1(m, s, logits[a + t]);
    if (c4 + t < c) online1(m, s, logits[c4 + t]);
    block_merge(m, s, pm, ps);
    const int first = (int)(r * V / run), final_ = (int)(((r + 1) * V - 1) / run);  // the blocks row r meets
    if (first == final_) {  // the whole row is here
      if (t == 0) losses[r] = logf(s) + m - logits[r * V + targets[r]];
      continue;
    }
    if (t == 0) {
      (b == final_ ? xf_first : xf_last)[b] = make_float2(m, s);
      __threadfence();
      last = atomicAdd(&xf_count[first], 1u) == (unsigned)(final_ - first);
    }
    __syncthreads();
    if (last) {  // every other part of row r is in the buffers: merge them in block order
      __threadfence();
      m = -INFINITY;
      s = 0.0f;
      for (int k = first + t; k <= final_; k += NT) {
        const float2 o = __ldcg(k == final_ ? &xf_first[k] : &xf_last[k]);
        merge(m, s, o.x, o.y);
      }
      block_merge(m, s, pm, ps);
      if (t == 0) {
        losses[r] = logf(s) + m - logits[r * V + targets[r]];
        xf_count[first] = 0;  // ready for the next launch
      }
    }
    __syncthreads();  // `last` is read before the next row sets it
  }
}
