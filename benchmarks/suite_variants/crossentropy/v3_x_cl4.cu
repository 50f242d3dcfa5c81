// launch: {"grid": ["4 * N"], "block": [256]}
// Cross-entropy, v3_x_cl2 with a cluster of 4 blocks of 256 per row instead of 2 of 512 (one idea:
// quarter-row units). The row's 16-byte-aligned packs are cut in 4 equal runs at pack boundaries
// (rank 0 also takes the head scalars, rank 3 the tail scalars); each block merges its threads'
// (max, sum), publishes it in shared memory, and after a cluster barrier rank 0 merges the 4 in rank
// order (deterministic) and writes the loss. 8 blocks of 256 per SM at 32 registers: the small size's
// 1024 blocks are 0.97 of a wave of 1056, the large size's 4096 blocks 3.88 waves of quarter rows
// (about 2 batches of 8 loads per thread each), so the drain at the end is a quarter of best.cu's.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define CL 4   // blocks per row (a cluster along x)
#define U 8
#define LOAD(p) __ldcs(p)  // read once: streaming
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
__global__ void __cluster_dims__(CL, 1, 1) __launch_bounds__(256, 8)
crossentropy_forward(float* __restrict__ losses, const float* __restrict__ logits,
                     const int* __restrict__ targets, int N, int V) {
  __shared__ float pm[32], ps[32];
  __shared__ float res[2];  // this block's (max, sum), read by rank 0
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = (int)cluster.block_rank();
  const int row = blockIdx.x / CL;
  if (row >= N) return;  // the grid is CL * N: a whole cluster leaves together
  const float* x = logits + (size_t)row * V;
  const int head = min(V, (int)((16 - ((size_t)x & 15)) & 15) / 4);
  const int nvec = (V - head) / 4;
  const int tail = head + nvec * 4;
  const float4* xv = reinterpret_cast<const float4*>(x + head);
  const int per = (nvec + CL - 1) / CL;
  const int a = min(nvec, rank * per), b = min(nvec, a + per);  // this block's packs
  const int t = threadIdx.x, nt = blockDim.x;
  float m = -INFINITY, s = 0.0f;
  int i = a + t;
  for (; i + (U - 1) * nt < b; i += U * nt) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = LOAD(xv + i + u * nt);
#pragma unroll
    for (int u = 0; u < U; ++u) online4(m, s, v[u]);
  }
  for (; i < b; i += nt) online4(m, s, LOAD(xv + i));
  if (rank == 0 && t < head) online1(m, s, x[t]);
  if (rank == CL - 1)
    for (int j = tail + t; j < V; j += nt) online1(m, s, x[j]);
  for (int o = 16; o > 0; o >>= 1) merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
  const int warp = t / 32, lane = t % 32;
  if (lane == 0) { pm[warp] = m; ps[warp] = s; }
  __syncthreads();
  if (warp == 0) {
    m = lane < nt / 32 ? pm[lane] : -INFINITY;
    s = lane < nt / 32 ? ps[lane] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
    if (lane == 0) { res[0] = m; res[1] = s; }
  }
  cluster.sync();  // every part's (max, sum) is in its block's shared memory
  if (rank == 0 && t == 0) {
    m = -INFINITY;
    s = 0.0f;
#pragma unroll
    for (int r = 0; r < CL; ++r) {
      const float* q = cluster.map_shared_rank(res, r);
      merge(m, s, q[0], q[1]);
    }
    losses[row] = logf(s) + m - x[targets[row]];
  }
  cluster.sync();  // the peers keep their shared memory until rank 0 has read it
}
