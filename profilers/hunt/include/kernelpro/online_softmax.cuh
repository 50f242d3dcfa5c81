/// \file KernelPro building block: online softmax (one pass for the max and the normalizer).
/// Softmax of a row in two passes over memory instead of three: the running maximum m and
/// the running sum d of exp(x - m) are updated together (when the maximum grows, the sum is
/// rescaled by exp(m_old - m_new)), and two partial states merge the same way, so threads,
/// warps and blocks can each reduce a part of the row and combine (Milakov & Gimelshein,
/// "Online normalizer calculation for softmax", 2018). The second pass writes
/// exp(x - m) / d. Rows of -inf give NaN, like torch.softmax.
///
/// Usage:
///   #include <kernelpro/online_softmax.cuh>
///   // one block of 256 threads per row of a rows x cols matrix:
///   kernelpro::softmax_rows<256><<<rows, 256>>>(in, out, cols);
///   // one warp per row (short rows):
///   kernelpro::softmax_row_warp(in + row * cols, out + row * cols, cols);
#pragma once

#include <math.h>

#include "block_reduce.cuh"
#include "warp_reduce.cuh"

namespace kernelpro {

/// Running state of an online softmax: the maximum m seen so far and d = sum of exp(x - m).
struct OnlineSoftmax {
  float m;
  float d;

  /// The state of an empty sequence.
  __device__ __forceinline__ static OnlineSoftmax empty() { return {-INFINITY, 0.0f}; }

  /// Add one element x.
  __device__ __forceinline__ void add(float x) {
    const float m_new = fmaxf(m, x);
    if (m_new == -INFINITY) {
      return;  // only -inf so far: nothing to add
    }
    d = d * __expf(m - m_new) + __expf(x - m_new);
    m = m_new;
  }

  /// The state of the concatenation of the sequences behind a and b.
  __device__ __forceinline__ static OnlineSoftmax merge(const OnlineSoftmax& a, const OnlineSoftmax& b) {
    const float m_new = fmaxf(a.m, b.m);
    if (m_new == -INFINITY) {
      return a;
    }
    return {m_new, a.d * __expf(a.m - m_new) + b.d * __expf(b.m - m_new)};
  }

  /// softmax(x) for an element of the sequence this state summarizes.
  __device__ __forceinline__ float normalize(float x) const { return __expf(x - m) / d; }
};

/// Operator that merges two OnlineSoftmax states, for warp_reduce and block_reduce.
struct MergeSoftmax {
  __device__ __forceinline__ OnlineSoftmax operator()(const OnlineSoftmax& a, const OnlineSoftmax& b) const {
    return OnlineSoftmax::merge(a, b);
  }
};

/// Butterfly shuffle of both fields of an OnlineSoftmax (lets warp_reduce reduce it).
__device__ __forceinline__ OnlineSoftmax shfl_xor(const OnlineSoftmax& s, int lane_mask, int width = kWarpSize,
                                                  unsigned mask = kFullWarpMask) {
  return {__shfl_xor_sync(mask, s.m, lane_mask, width), __shfl_xor_sync(mask, s.d, lane_mask, width)};
}

/// Softmax of one row of n floats by one whole warp: one online pass for (max, sum), one
/// pass to write. All 32 lanes must call it.
__device__ __forceinline__ void softmax_row_warp(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int lane = threadIdx.x % kWarpSize;
  OnlineSoftmax s = OnlineSoftmax::empty();
  for (int i = lane; i < n; i += kWarpSize) {
    s.add(in[i]);
  }
  s = warp_reduce(s, MergeSoftmax{});
  for (int i = lane; i < n; i += kWarpSize) {
    out[i] = s.normalize(in[i]);
  }
}

/// Softmax of one row of n floats by one whole thread block of BlockSize threads (a
/// multiple of 32): one online pass, a block reduction of the states, one pass to write.
template <int BlockSize>
__device__ __forceinline__ void softmax_row_block(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int tid = linear_thread_index();
  OnlineSoftmax s = OnlineSoftmax::empty();
  for (int i = tid; i < n; i += BlockSize) {
    s.add(in[i]);
  }
  s = block_reduce<BlockSize>(s, MergeSoftmax{});
  for (int i = tid; i < n; i += BlockSize) {
    out[i] = s.normalize(in[i]);
  }
}

/// Kernel: softmax of each row of a row-major matrix with `cols` columns, one block of
/// BlockSize threads per row (launch with gridDim.x = rows, blockDim.x = BlockSize).
template <int BlockSize>
__global__ void __launch_bounds__(BlockSize) softmax_rows(const float* __restrict__ in, float* __restrict__ out,
                                                         int cols) {
  const size_t row = blockIdx.x;
  softmax_row_block<BlockSize>(in + row * cols, out + row * cols, cols);
}

}  // namespace kernelpro
