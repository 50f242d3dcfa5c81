// Bias gradient, hand-written for sm_90: a block covers 32 columns (8 threads x float4) and
// 32 row groups; a cluster of 8 blocks along gridDim.y splits the rows further, and the
// partial sums meet in shared memory, then in the first block's shared memory through
// distributed shared memory (no atomics, no second launch). OC a multiple of 4.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void __cluster_dims__(1, 8, 1) __launch_bounds__(256)
bias_backward(float* __restrict__ dbias, const float* __restrict__ dout, int N, int OC) {
  __shared__ float4 part[32][9];
  __shared__ float4 total[8];
  cg::cluster_group cluster = cg::this_cluster();
  const int cx = threadIdx.x;  // float4 column group, 0..7
  const int ry = threadIdx.y;  // row group, 0..31
  const int col = blockIdx.x * 32 + cx * 4;
  const int rank = cluster.block_rank(), ranks = cluster.num_blocks();
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  if (col < OC) {
    for (int r = ry + 32 * rank; r < N; r += 32 * ranks) {
      const float4 v = *reinterpret_cast<const float4*>(dout + (size_t)r * OC + col);
      acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
    }
  }
  part[ry][cx] = acc;
  __syncthreads();
  if (ry == 0) {
    for (int k = 1; k < 32; ++k) {
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
    *reinterpret_cast<float4*>(dbias + col) = acc;
  }
  cluster.sync();
}
