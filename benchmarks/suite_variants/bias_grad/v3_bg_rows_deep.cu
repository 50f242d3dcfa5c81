// launch: {"grid": [264], "block": ["min(256, 32 * cdiv(cdiv(OC, 4), 32))"]}
// Bias gradient, v3_bg_rows with twice the rows at once (one idea: about 16 loads in flight per
// thread instead of 8): 264 blocks (2 per SM), block b sums the contiguous whole rows
// [b N / 264, (b + 1) N / 264), all OC columns (OC 3072: 256 threads x 3 packs x 6 rows, 18 streaming
// loads in flight per thread, 144 KB per SM; OC 768: 192 threads x 1 pack x 16 rows); the strips meet
// in clusters of 8 consecutive blocks through distributed shared memory, rank r writing the r-th
// eighth of its cluster's sums to a module buffer; the last cluster to finish an eighth (a
// self-resetting counter per rank) adds the 33 clusters' rows in cluster order. Deterministic;
// chunks, odd OC and a buffer too small as v3_bg_rows.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define CL 8       // blocks per cluster (consecutive strips)
#define CMAX 4     // float4 packs of a row per thread and chunk
#define URS 2      // rows at once: URS * (8 / packs per thread), about 8 loads in flight at URS 1
#define MINB 2     // blocks per SM the registers must allow
#define LOAD(p) __ldcs(p)  // streaming: read once, evict first
#define PART_CAP (1 << 20)  // floats of cluster sums (clusters * OC)

__device__ float bgrd_part[PART_CAP];
__device__ unsigned bgrd_count[CL];

__device__ __forceinline__ void add(float4& a, const float4& b) { a.x += b.x; a.y += b.y; a.z += b.z; a.w += b.w; }
__device__ __forceinline__ void add(float& a, const float& b) { a += b; }
template <typename T> __device__ __forceinline__ T zero();
template <> __device__ __forceinline__ float4 zero<float4>() { return make_float4(0.f, 0.f, 0.f, 0.f); }
template <> __device__ __forceinline__ float zero<float>() { return 0.f; }

// the sums of n rows (stride q packs) of packs tx + c * TX < w of p, into sm[]: C packs per thread, UR rows at once
template <int C, int UR>
__device__ __forceinline__ void strip(float4* sm, const float4* p, int n, int q, int w, int tx, int TX) {
  float4 acc[C];
#pragma unroll
  for (int c = 0; c < C; ++c) acc[c] = zero<float4>();
  bool ok[C];
#pragma unroll
  for (int c = 0; c < C; ++c) ok[c] = tx + c * TX < w;
  p += tx;
  int k = 0;
  for (; k + UR <= n; k += UR, p += (size_t)UR * q) {
    float4 v[UR][C];
#pragma unroll
    for (int r = 0; r < UR; ++r)
#pragma unroll
      for (int c = 0; c < C; ++c) v[r][c] = ok[c] ? LOAD(p + (size_t)r * q + c * TX) : zero<float4>();
#pragma unroll
    for (int r = 0; r < UR; ++r)
#pragma unroll
      for (int c = 0; c < C; ++c) add(acc[c], v[r][c]);
  }
  if (k < n) {  // the last rows, also at once (predicated)
    float4 v[UR][C];
#pragma unroll
    for (int r = 0; r < UR; ++r)
#pragma unroll
      for (int c = 0; c < C; ++c) v[r][c] = ok[c] && k + r < n ? LOAD(p + (size_t)r * q + c * TX) : zero<float4>();
#pragma unroll
    for (int r = 0; r < UR; ++r)
#pragma unroll
      for (int c = 0; c < C; ++c) add(acc[c], v[r][c]);
  }
#pragma unroll
  for (int c = 0; c < C; ++c)
    if (ok[c]) sm[tx + c * TX] = acc[c];
}

// units [lo, hi) of dst = the sums over k < ncl of part[k * stride + .], in k order (the threads split
// the clusters into G groups when the slice is narrow, added in group order through red[])
template <typename T>
__device__ __forceinline__ void finish(T* dst, const T* part, int stride, int ncl, int lo, int hi, T* red, int t, int nt) {
  const int cols = hi - lo;
  if (cols <= 0) return;  // uniform over the block
  const int G = cols * 2 <= nt ? min(8, nt / cols) : 1;
  if (G == 1) {
    for (int j = lo + t; j < hi; j += nt) {
      T a = zero<T>();
#pragma unroll 8
      for (int k = 0; k < ncl; ++k) add(a, __ldcg(part + (size_t)k * stride + j));
      dst[j] = a;
    }
    return;
  }
  const int g = t / cols, j = lo + t % cols;
  T a = zero<T>();
  if (g < G) {
#pragma unroll 4
    for (int k = g; k < ncl; k += G) add(a, __ldcg(part + (size_t)k * stride + j));
    red[g * cols + (j - lo)] = a;
  }
  __syncthreads();
  if (g == 0) {
    for (int h = 1; h < G; ++h) add(a, red[h * cols + (j - lo)]);
    dst[j] = a;
  }
}

// units [lo, hi) of out = the sums of the 8 ranks' sm[] (rank order)
template <typename T>
__device__ __forceinline__ void merge(cg::cluster_group& cluster, T* out, T* sm, int lo, int hi, int t, int nt) {
  for (int j = lo + t; j < hi; j += nt) {
    T v[CL];
#pragma unroll
    for (int r = 0; r < CL; ++r) v[r] = *cluster.map_shared_rank(sm + j, r);
#pragma unroll
    for (int r = 1; r < CL; ++r) add(v[0], v[r]);
    out[j] = v[0];
  }
}

__global__ void __cluster_dims__(CL, 1, 1) __launch_bounds__(256, MINB)
bias_backward(float* __restrict__ dbias, const float* __restrict__ dout, int N, int OC) {
  __shared__ float4 sm4[CMAX * 256];  // a chunk's strip sums (also the finish's scratch)
  __shared__ bool last;
  cg::cluster_group cluster = cg::this_cluster();
  float* smf = reinterpret_cast<float*>(sm4);
  const int t = threadIdx.x, nt = blockDim.x;
  const int rank = (int)cluster.block_rank();
  const int cid = blockIdx.x / CL, ncl = gridDim.x / CL;
  const bool fits = (long long)ncl * OC <= PART_CAP;
  if (!fits && cid != 0) return;  // uniform over a cluster: cluster 0 alone, over every row
  const int B = fits ? ncl * CL : CL, b = fits ? blockIdx.x : rank;  // strips, this block's
  const int r0 = (int)((long long)b * N / B), r1 = (int)((long long)(b + 1) * N / B);
  const bool vec = OC % 4 == 0;
  const int q = OC / 4;
  const int cw = vec ? 4 * CMAX * nt : CMAX * nt;  // floats of a chunk
  for (int c0 = 0; c0 < OC; c0 += cw) {
    const int wf = min(cw, OC - c0);  // floats of this chunk
    if (vec) {
      const int w = wf / 4, C = (w + nt - 1) / nt;
      const float4* p = reinterpret_cast<const float4*>(dout + (size_t)r0 * OC + c0);
      if (C == 1) strip<1, 8 * URS>(sm4, p, r1 - r0, q, w, t, nt);
      else if (C == 2) strip<2, 4 * URS>(sm4, p, r1 - r0, q, w, t, nt);
      else if (C == 3) strip<3, 3 * URS>(sm4, p, r1 - r0, q, w, t, nt);
      else strip<4, 2 * URS>(sm4, p, r1 - r0, q, w, t, nt);
    } else {
      for (int j = t; j < wf; j += nt) {
        const float* p = dout + (size_t)r0 * OC + c0 + j;
        float a = 0.f;
        for (int r = r0; r < r1; ++r, p += OC) a += *p;
        smf[j] = a;
      }
    }
    cluster.sync();  // every strip's sums of this chunk are in its block's shared memory
    float* out = fits && ncl > 1 ? bgrd_part + (size_t)cid * OC + c0 : dbias + c0;
    if (vec) {
      const int w = wf / 4, sl = (w + CL - 1) / CL;
      merge<float4>(cluster, reinterpret_cast<float4*>(out), sm4, min(w, rank * sl), min(w, (rank + 1) * sl), t, nt);
    } else {
      const int sl = (wf + CL - 1) / CL;
      merge<float>(cluster, out, smf, min(wf, rank * sl), min(wf, (rank + 1) * sl), t, nt);
    }
    cluster.sync();  // the peers keep their shared memory until it has been read
  }
  if (!fits || ncl == 1) return;  // dbias written by the merge
  __threadfence();
  __syncthreads();
  if (t == 0) last = atomicAdd(&bgrd_count[rank], 1u) == (unsigned)ncl - 1;
  __syncthreads();
  if (!last) return;
  // the last cluster to finish this rank's eighth of every chunk: the clusters' rows in cluster order
  __threadfence();
  for (int c0 = 0; c0 < OC; c0 += cw) {
    const int wf = min(cw, OC - c0);
    if (vec) {
      const int w = wf / 4, sl = (w + CL - 1) / CL;
      finish<float4>(reinterpret_cast<float4*>(dbias + c0), reinterpret_cast<const float4*>(bgrd_part + c0), q, ncl,
                     min(w, rank * sl), min(w, (rank + 1) * sl), sm4, t, nt);
    } else {
      const int sl = (wf + CL - 1) / CL;
      finish<float>(dbias + c0, bgrd_part + c0, OC, ncl, min(wf, rank * sl), min(wf, (rank + 1) * sl), smf, t, nt);
    }
    __syncthreads();  // red[] reused by the next chunk
  }
  if (t == 0) bgrd_count[rank] = 0;  // ready for the next launch
}
