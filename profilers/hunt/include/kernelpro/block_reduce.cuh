/// \file KernelPro building block: thread-block reductions (warp shuffles + one shared array).
/// Block-wide reductions: each warp reduces its values with shuffles, lane 0 of each warp
/// writes one partial to shared memory, one `__syncthreads()`, then every warp reduces the
/// partials again with shuffles, so every thread of the block returns the result. Two
/// barriers in all, against log2(blockDim) barriers for a shared-memory tree reduction.
/// All threads of the block must call it (it contains barriers). The block may be 1-, 2-
/// or 3-D; BlockSize is its total thread count, a multiple of 32 up to 1024.
///
/// Usage:
///   #include <kernelpro/block_reduce.cuh>
///   __global__ __launch_bounds__(256) void k(const float* x, float* out) {
///     float s = kernelpro::block_reduce_sum<256>(x[blockIdx.x * 256 + threadIdx.x]);
///     if (threadIdx.x == 0) out[blockIdx.x] = s;
///   }
#pragma once

#include "warp_reduce.cuh"

namespace kernelpro {

/// Linear index of the calling thread in its block (x fastest).
__device__ __forceinline__ int linear_thread_index() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

/// Reduce one value per thread over the whole thread block with the associative operator
/// `op`; every thread returns the result. BlockSize: the block's thread count (a multiple
/// of 32, at most 1024). Safe to call several times in a row (it ends with a barrier).
template <int BlockSize, class T, class Op>
__device__ __forceinline__ T block_reduce(T v, Op op) {
  static_assert(BlockSize % kWarpSize == 0 && BlockSize >= kWarpSize && BlockSize <= 1024,
                "BlockSize must be a multiple of 32 between 32 and 1024");
  constexpr int kWarps = BlockSize / kWarpSize;
  __shared__ T partial[kWarps];
  const int tid = linear_thread_index();
  const int lane = tid % kWarpSize;
  v = warp_reduce(v, op);
  if (kWarps == 1) {
    return v;
  }
  if (lane == 0) {
    partial[tid / kWarpSize] = v;
  }
  __syncthreads();
  T r;
  if constexpr ((kWarps & (kWarps - 1)) == 0) {
    r = warp_reduce<kWarps>(partial[lane % kWarps], op);  // each group of kWarps lanes
  } else {
    r = partial[0];  // broadcast reads: no bank conflicts
#pragma unroll
    for (int w = 1; w < kWarps; ++w) {
      r = op(r, partial[w]);
    }
  }
  __syncthreads();  // the partials may be overwritten by the next call
  return r;
}

/// Sum of one value per thread over the block, returned to every thread.
template <int BlockSize, class T>
__device__ __forceinline__ T block_reduce_sum(T v) {
  return block_reduce<BlockSize>(v, Sum{});
}

/// Maximum of one value per thread over the block, returned to every thread.
template <int BlockSize, class T>
__device__ __forceinline__ T block_reduce_max(T v) {
  return block_reduce<BlockSize>(v, Max{});
}

/// Minimum of one value per thread over the block, returned to every thread.
template <int BlockSize, class T>
__device__ __forceinline__ T block_reduce_min(T v) {
  return block_reduce<BlockSize>(v, Min{});
}

}  // namespace kernelpro
