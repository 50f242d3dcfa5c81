// launch: {"grid": ["cdiv(OC, 32)", 8], "block": [8, "min(128, 32 * cdiv(3072, OC))"]}
// Bias gradient, best.cu's cluster of 8 blocks along the rows with more row groups per block when
// OC is small (128 at OC 768, 32 at OC 3072: about the same number of threads at both sizes) and an
// int-counted loop keeping 8 streaming float4 loads (__ldcs) in flight per thread.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
#define MAX_RY 128
#define U 8

__global__ void __cluster_dims__(1, 8, 1) __launch_bounds__(8 * MAX_RY)
bias_backward(float* __restrict__ dbias, const float* __restrict__ dout, int N, int OC) {
  __shared__ float4 part[MAX_RY][9];
  __shared__ float4 total[8];
  cg::cluster_group cluster = cg::this_cluster();
  const int cx = threadIdx.x;  // float4 column group, 0..7
  const int ry = threadIdx.y, RY = blockDim.y;
  const int col = blockIdx.x * 32 + cx * 4;
  const int rank = cluster.block_rank(), ranks = cluster.num_blocks();
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  const bool vec = OC % 4 == 0;
  if (col < OC) {
    const int first = ry + RY * rank, stride = RY * ranks;
    const int n = first < N ? (N - first + stride - 1) / stride : 0;
    const size_t step = (size_t)stride * OC;
    const float* p = dout + (size_t)first * OC + col;
    if (vec) {
      int k = 0;
      for (; k + U <= n; k += U, p += U * step) {  // U rows at once
        float4 v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = __ldcs(reinterpret_cast<const float4*>(p + u * step));
#pragma unroll
        for (int u = 0; u < U; ++u) { acc.x += v[u].x; acc.y += v[u].y; acc.z += v[u].z; acc.w += v[u].w; }
      }
      if (k < n) {  // the last rows, also at once (predicated)
        float4 v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          v[u] = make_float4(0.f, 0.f, 0.f, 0.f);
          if (k + u < n) v[u] = __ldcs(reinterpret_cast<const float4*>(p + u * step));
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
  part[ry][cx] = acc;
  __syncthreads();
  if (ry == 0) {
    for (int k = 1; k < RY; ++k) {
      const float4 v = part[k][cx];
      acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
    }
    total[cx] = acc;
  }
  cluster.sync();
  if (rank == 0 && ry == 0 && col < OC) {
    for (int b = 1; b < ranks; ++b) {
      const float4 v = cluster.map_shared_rank(total, b)[cx];
      acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
    }
    if (vec) {
      *reinterpret_cast<float4*>(dbias + col) = acc;
    } else {
      dbias[col] = acc.x;
      if (col + 1 < OC) dbias[col + 1] = acc.y;
      if (col + 2 < OC) dbias[col + 2] = acc.z;
      if (col + 3 < OC) dbias[col + 3] = acc.w;
    }
  }
  cluster.sync();
}
