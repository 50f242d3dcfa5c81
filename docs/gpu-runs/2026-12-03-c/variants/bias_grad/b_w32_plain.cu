// launch: {"grid": ["cdiv(OC, 128)", 8], "block": [32, 32]}
// Bias gradient: a warp reads 512 contiguous bytes of a row (32 threads x float4), 32 row groups per
// block, a cluster of 8 blocks along the rows; partial sums meet in shared memory, then through DSMEM.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
constexpr int UNR = 8;
#define RY 32
#define LOAD(p) (*(p))
__global__ void __cluster_dims__(1, 8, 1) __launch_bounds__(32 * RY)
bias_backward(float* __restrict__ dbias, const float* __restrict__ dout, int N, int OC) {
  __shared__ float4 part[RY][33];
  __shared__ float4 total[32];
  cg::cluster_group cluster = cg::this_cluster();
  const int cx = threadIdx.x, ry = threadIdx.y;
  const int col = blockIdx.x * 128 + cx * 4;
  const int rank = cluster.block_rank(), ranks = cluster.num_blocks();
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  const bool vec = OC % 4 == 0;
  if (col < OC) {
    const int step = RY * ranks;
    if (vec) {
#pragma unroll UNR
      for (int r = ry + RY * rank; r < N; r += step) {
        const float4 v = LOAD(reinterpret_cast<const float4*>(dout + (size_t)r * OC + col));
        acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
      }
    } else {
      for (int r = ry + RY * rank; r < N; r += step) {
        const float* p = dout + (size_t)r * OC + col;
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
