// launch: {"grid": ["2 * N"], "block": [512], "shared_bytes": "2 * C + 32"}
// Row softmax, best.cu with one exponential per element instead of about two: the read pass only
// stores the half row into shared memory and takes the max (no online rescaling); the halves' max
// meets through distributed shared memory; one shared-memory pass writes e = exp(x - max) back into
// the cache and sums it; the halves' sums meet; the write pass stores cache * (1 / sum) with no
// exponential. Three cluster barriers instead of two (the last split: arrive after reading the
// peer's sum, wait before leaving). The peer's sum comes with the max it was taken at and is
// rescaled to this block's: a factor of exactly 1 on the GPU, there for the emulator's cluster,
// whose recording run answers peer reads with the block's own values. 48 registers (best.cu 53).
// Rows longer than the launch's shared memory read global memory in each pass and compute the
// exponential twice.
// (best.cu's notes:)
// Row softmax, hand-written for sm_90: a cluster of 2 blocks (512 threads each) per row, each
// block taking half of the row. The half row is read once from DRAM with float4 loads (4 in
// flight per thread) into dynamic shared memory while a running max and rescaled sum are kept
// (online softmax); the halves' max and sum meet through distributed shared memory; the write
// pass reads the half row back from shared memory. Two blocks fit on an SM (a half row of 50257
// floats is 100 KB), so one block's write pass overlaps another's reads. Rows longer than the
// launch's shared memory read global memory again; rows of an odd length peel a head to reach
// 16-byte alignment (block 0) and a tail (block 1).
#include <cfloat>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ __forceinline__ unsigned dyn_smem_bytes() {
#ifdef KP_EMULATOR_HOOKS
  return kp_dynamic_smem_bytes();
#else
  unsigned r;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
  return r;
#endif
}

__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

#define U 4
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(512, 2) softmax_forward(float* __restrict__ out, const float* __restrict__ inp,
                                                           int N, int C) {
  extern __shared__ float4 cache[];
  __shared__ float pm[32], ps[32];
  __shared__ float hmax;  // this block's max, read by the peer
  __shared__ float2 hsum;  // this block's sum and the max it is taken at, read by the peer
  cg::cluster_group cluster = cg::this_cluster();
  const int row = min((int)blockIdx.x / 2, N - 1), part = cluster.block_rank();
  const float* x = inp + (size_t)row * C;
  float* y = out + (size_t)row * C;
  const int head = min(C, (int)((16 - ((size_t)x & 15)) & 15) / 4);
  const int nvec = (C - head) / 4;
  const int tail = head + nvec * 4;
  const float4* xv = reinterpret_cast<const float4*>(x + head);
  const int lo = part * (nvec / 2), hi = part ? nvec : nvec / 2;
  const bool cached = (unsigned)(hi - lo) * 16u <= dyn_smem_bytes();
  const int t = threadIdx.x, nt = blockDim.x;
  const bool live = (int)blockIdx.x / 2 < N;
  const int warp = t / 32, lane = t % 32;
  // pass 1: the half row into shared memory, the max only (no exponential)
  float m = -INFINITY;
  int i = lo + t;
  if (live) {
  for (; i + (U - 1) * nt < hi; i += U * nt) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = __ldcs(xv + i + u * nt);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (cached) cache[i + u * nt - lo] = v[u];
      m = fmaxf(m, fmaxf(fmaxf(v[u].x, v[u].y), fmaxf(v[u].z, v[u].w)));
    }
  }
  for (; i < hi; i += nt) {
    const float4 v = __ldcs(xv + i);
    if (cached) cache[i - lo] = v;
    m = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
  }
  if (part == 0 && t < head) m = fmaxf(m, x[t]);
  if (part == 1)
    for (int j = tail + t; j < C; j += nt) m = fmaxf(m, x[j]);
  }
  m = warp_max(m);
  if (lane == 0) pm[warp] = m;
  __syncthreads();
  m = warp_max(lane < nt / 32 ? pm[lane] : -INFINITY);
  if (t == 0) hmax = m;
  cluster.sync();
  m = fmaxf(m, *cluster.map_shared_rank(&hmax, part ^ 1));
  // pass 2: one exponential per element, kept in shared memory (each thread reads back only the
  // vectors it wrote), and the sum; rows that do not fit read global memory again
  float s = 0.0f;
  if (live) {
    if (cached) {
#pragma unroll 4
      for (int k = lo + t; k < hi; k += nt) {
        float4 v = cache[k - lo];
        v = make_float4(__expf(v.x - m), __expf(v.y - m), __expf(v.z - m), __expf(v.w - m));
        cache[k - lo] = v;
        s += (v.x + v.y) + (v.z + v.w);
      }
    } else {
      for (int k = lo + t; k < hi; k += nt) {
        const float4 v = xv[k];
        s += (__expf(v.x - m) + __expf(v.y - m)) + (__expf(v.z - m) + __expf(v.w - m));
      }
    }
    if (part == 0 && t < head) s += __expf(x[t] - m);
    if (part == 1)
      for (int j = tail + t; j < C; j += nt) s += __expf(x[j] - m);
  }
  s = warp_sum(s);
  if (lane == 0) ps[warp] = s;
  __syncthreads();
  s = warp_sum(lane < nt / 32 ? ps[lane] : 0.0f);
  if (t == 0) hsum = make_float2(m, s);
  cluster.sync();  // also: the peer has read hmax
  // the peer's sum, rescaled from the max it was taken at (on the GPU the same max: a factor of
  // exactly 1; the emulator's recording run, whose peer reads return the block's own values, takes
  // it at the peer's own max)
  const float2 o = *cluster.map_shared_rank(&hsum, part ^ 1);
  s += o.y * __expf(o.x - m);
  cluster.barrier_arrive();  // this block has read the peer's shared memory
  if (live) {
    const float inv = 1.0f / s;
    float4* yv = reinterpret_cast<float4*>(y + head);
    if (cached) {
      for (int k = lo + t; k < hi; k += nt) {
        const float4 e = cache[k - lo];
        __stcs(yv + k, make_float4(e.x * inv, e.y * inv, e.z * inv, e.w * inv));
      }
    } else {
      for (int k = lo + t; k < hi; k += nt) {
        const float4 v = xv[k];
        __stcs(yv + k, make_float4(__expf(v.x - m) * inv, __expf(v.y - m) * inv, __expf(v.z - m) * inv,
                                   __expf(v.w - m) * inv));
      }
    }
    if (part == 0 && t < head) y[t] = __expf(x[t] - m) * inv;
    if (part == 1)
      for (int j = tail + t; j < C; j += nt) y[j] = __expf(x[j] - m) * inv;
  }
  cluster.barrier_wait();  // the peer has read this block's shared memory before it leaves
}
