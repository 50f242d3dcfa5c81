// launch: {"grid": ["4 * N"], "block": [256], "shared_bytes": "C + 64"}
// Row softmax, best.cu with a cluster of 4 blocks of 256 threads per row instead of 2 of 512: each
// block keeps a quarter row (50 KB at C 50257) in dynamic shared memory, so 4 blocks share an SM
// (about 1 row per SM as before, and as many loads in flight per SM: 4 x 256 threads x 4 float4), but
// in 4 independent pieces: one block's write pass and its cluster barrier overlap three others' reads.
// The blocks' max and sum meet through distributed shared memory: every block merges the 4 in rank
// order (the same result in each); the second barrier is split (arrive after the reads, wait before
// leaving) so the write pass does not wait for the slowest peer.
#include <cfloat>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define CL 4    // blocks per row: a cluster
#define NT 256  // threads per block
#define U 4     // float4 loads in flight per thread

__device__ __forceinline__ unsigned dyn_smem_bytes() {
#ifdef KP_EMULATOR_HOOKS
  return kp_dynamic_smem_bytes();
#else
  unsigned r;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
  return r;
#endif
}

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

__global__ void __cluster_dims__(CL, 1, 1) __launch_bounds__(NT, 1024 / NT)
softmax_forward(float* __restrict__ out, const float* __restrict__ inp, int N, int C) {
  extern __shared__ float4 cache[];
  __shared__ float pm[NT / 32], ps[NT / 32];
  __shared__ float2 mine;  // this block's max and sum, read by the cluster
  cg::cluster_group cluster = cg::this_cluster();
  const int row = min((int)blockIdx.x / CL, N - 1), part = (int)cluster.block_rank();
  const bool live = (int)blockIdx.x / CL < N;
  const float* x = inp + (size_t)row * C;
  float* y = out + (size_t)row * C;
  const int head = min(C, (int)((16 - ((size_t)x & 15)) & 15) / 4);
  const int nvec = (C - head) / 4;
  const int tail = head + nvec * 4;
  const float4* xv = reinterpret_cast<const float4*>(x + head);
  const int lo = (int)((long long)nvec * part / CL), hi = (int)((long long)nvec * (part + 1) / CL);
  const bool cached = (unsigned)(hi - lo) * 16u <= dyn_smem_bytes();
  const int t = threadIdx.x;
  float m = -INFINITY, s = 0.0f;
  int i = lo + t;
  if (live) {
    for (; i + (U - 1) * NT < hi; i += U * NT) {
      float4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = __ldcs(xv + i + u * NT);
#pragma unroll
      for (int u = 0; u < U; ++u) {
        if (cached) cache[i + u * NT - lo] = v[u];
        online4(m, s, v[u]);
      }
    }
    for (; i < hi; i += NT) {
      const float4 v = __ldcs(xv + i);
      if (cached) cache[i - lo] = v;
      online4(m, s, v);
    }
    if (part == 0 && t < head) online1(m, s, x[t]);
    if (part == CL - 1)
      for (int j = tail + t; j < C; j += NT) online1(m, s, x[j]);
  }
  for (int o = 16; o > 0; o >>= 1) merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
  const int warp = t / 32, lane = t % 32;
  if (lane == 0) { pm[warp] = m; ps[warp] = s; }
  __syncthreads();
  m = lane < NT / 32 ? pm[lane] : -INFINITY;
  s = lane < NT / 32 ? ps[lane] : 0.0f;
  for (int o = 16; o > 0; o >>= 1) merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
  if (t == 0) mine = make_float2(m, s);
  cluster.sync();
  m = -INFINITY;
  s = 0.0f;
#pragma unroll
  for (int r = 0; r < CL; ++r) {
    const float2 o = *cluster.map_shared_rank(&mine, r);
    merge(m, s, o.x, o.y);
  }
  cluster.barrier_arrive();  // this block has read its peers' shared memory
  if (live) {
    const float inv = 1.0f / s;
    float4* yv = reinterpret_cast<float4*>(y + head);
    for (int k = lo + t; k < hi; k += NT) {
      const float4 v = cached ? cache[k - lo] : xv[k];
      __stcs(yv + k, make_float4(__expf(v.x - m) * inv, __expf(v.y - m) * inv, __expf(v.z - m) * inv,
                                 __expf(v.w - m) * inv));
    }
    if (part == 0 && t < head) y[t] = __expf(x[t] - m) * inv;
    if (part == CL - 1)
      for (int j = tail + t; j < C; j += NT) y[j] = __expf(x[j] - m) * inv;
  }
  cluster.barrier_wait();  // the peers have read this block's shared memory before it leaves
}
