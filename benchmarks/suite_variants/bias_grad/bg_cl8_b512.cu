// launch: {"grid": ["cdiv(OC, 4 * min(32, max(8, OC // 96)))", 8], "block": ["min(32, max(8, OC // 96))", "512 // min(32, max(8, OC // 96))"]}
// Bias gradient, bg_cl8 with blocks of 512 threads and column groups half as wide (OC 3072: 32 threads
// x 16 row groups, 128 columns; OC 768: 8 x 64, 32 columns): twice the clusters, 192 blocks instead of
// 96, so the same 12 MB of loads in flight come from all 132 SMs (1 or 2 blocks each) instead of 96 of
// them, in shorter runs of a row (512 bytes at OC 3072 and 128 at OC 768, instead of 1024 and 256).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define CL 8   // blocks per column group (a cluster along y)
#define U 8    // loads in flight per thread
#define LOAD(p) __ldcs(p)  // streaming: read once, evict first

__global__ void __cluster_dims__(1, CL, 1) __launch_bounds__(512, 2)
bias_backward(float* __restrict__ dbias, const float* __restrict__ dout, int N, int OC) {
  __shared__ float4 red[512];
  cg::cluster_group cluster = cg::this_cluster();
  if (blockIdx.y >= CL) return;  // one cluster per column group (a whole cluster leaves together)
  const int tx = threadIdx.x, ry = threadIdx.y, RX = blockDim.x, RY = blockDim.y;
  const int col = (blockIdx.x * RX + tx) * 4;
  const int part = (int)cluster.block_rank();
  const bool vec = OC % 4 == 0;
  const int rs = (N + CL - 1) / CL;
  const int r0 = min(N, part * rs), r1 = min(N, r0 + rs);  // this block's strip
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  if (col < OC) {
    const int n = r1 - r0 - ry > 0 ? (r1 - r0 - ry + RY - 1) / RY : 0;  // rows of this thread
    const size_t step = (size_t)RY * OC;
    const float* p = dout + (size_t)(r0 + ry) * OC + col;
    if (vec) {
      int k = 0;
      for (; k + U <= n; k += U, p += U * step) {  // U rows at once
        float4 v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = LOAD(reinterpret_cast<const float4*>(p + u * step));
#pragma unroll
        for (int u = 0; u < U; ++u) { acc.x += v[u].x; acc.y += v[u].y; acc.z += v[u].z; acc.w += v[u].w; }
      }
      if (k < n) {  // the last rows, also at once (predicated)
        float4 v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          v[u] = make_float4(0.f, 0.f, 0.f, 0.f);
          if (k + u < n) v[u] = LOAD(reinterpret_cast<const float4*>(p + u * step));
        }
#pragma unroll
        for (int u = 0; u < U; ++u) { acc.x += v[u].x; acc.y += v[u].y; acc.z += v[u].z; acc.w += v[u].w; }
      }
    } else {
      for (int k = 0; k < n; ++k, p += step) {
        acc.x += p[0];
        if (col + 1 < OC) acc.y += p[1];
        if (col + 2 < OC) acc.z += p[2];
        if (col + 3 < OC) acc.w += p[3];
      }
    }
  }
  // the strip's sums: a tree over the row groups (any count), in red[tx]
  red[ry * RX + tx] = acc;
  __syncthreads();
  for (int h = 1; h < RY; h *= 2) {
    if (ry % (2 * h) == 0 && ry + h < RY) {
      const float4 a = red[ry * RX + tx], b = red[(ry + h) * RX + tx];
      red[ry * RX + tx] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
    }
    __syncthreads();
  }
  cluster.sync();  // every strip's sums are in its block's shared memory
  if (part == 0 && ry == 0 && col < OC) {
    float4 v[CL];
#pragma unroll
    for (int r = 0; r < CL; ++r) v[r] = *cluster.map_shared_rank(&red[tx], r);
    acc = v[0];
#pragma unroll
    for (int r = 1; r < CL; ++r) { acc.x += v[r].x; acc.y += v[r].y; acc.z += v[r].z; acc.w += v[r].w; }
    if (vec) {
      *reinterpret_cast<float4*>(dbias + col) = acc;
    } else {
      dbias[col] = acc.x;
      if (col + 1 < OC) dbias[col + 1] = acc.y;
      if (col + 2 < OC) dbias[col + 2] = acc.z;
      if (col + 3 < OC) dbias[col + 3] = acc.w;
    }
  }
  cluster.sync();  // the peers keep their shared memory until rank 0 has read it
}
