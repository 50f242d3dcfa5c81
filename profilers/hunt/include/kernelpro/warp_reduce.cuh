/// \file KernelPro building block: warp-level reductions with register shuffles.
/// Warp reductions (sum, max, min, any associative operator) with `__shfl_xor_sync`: a
/// butterfly of log2(width) shuffle steps in which every lane ends with the result. No shared
/// memory and no `__syncthreads()`; the lanes named in `mask` must all call it (by default
/// the whole warp). Works for int, unsigned, long long, float, double, __half and
/// __nv_bfloat16, and for any type with a `shfl_xor` overload (see OnlineSoftmax).
///
/// Usage:
///   #include <kernelpro/warp_reduce.cuh>
///   float total = kernelpro::warp_reduce_sum(x);          // all 32 lanes get the sum
///   float m = kernelpro::warp_reduce_max<16>(x);           // each half-warp separately
#pragma once

namespace kernelpro {

/// All 32 lanes of a warp.
constexpr unsigned kFullWarpMask = 0xffffffffu;
/// Threads in a warp.
constexpr int kWarpSize = 32;

/// Addition, for warp_reduce and block_reduce.
struct Sum {
  template <class T>
  __device__ __forceinline__ T operator()(const T& a, const T& b) const { return a + b; }
};

/// Maximum (returns b when a is NaN), for warp_reduce and block_reduce.
struct Max {
  template <class T>
  __device__ __forceinline__ T operator()(const T& a, const T& b) const { return a > b ? a : b; }
};

/// Minimum (returns b when a is NaN), for warp_reduce and block_reduce.
struct Min {
  template <class T>
  __device__ __forceinline__ T operator()(const T& a, const T& b) const { return a < b ? a : b; }
};

/// Exchange a value with the lane whose index differs in the bits of `lane_mask` (one
/// butterfly step). Overload it for your own types to reduce them with warp_reduce.
template <class T>
__device__ __forceinline__ T shfl_xor(const T& v, int lane_mask, int width = kWarpSize,
                                      unsigned mask = kFullWarpMask) {
  return __shfl_xor_sync(mask, v, lane_mask, width);
}

/// Reduce `v` over each group of `Width` consecutive lanes (Width a power of two, at most
/// 32) with the associative operator `op`; every lane of the group returns the result.
/// All lanes compute the same sequence of operations, so the results agree bit for bit.
template <int Width = kWarpSize, class T, class Op>
__device__ __forceinline__ T warp_reduce(T v, Op op, unsigned mask = kFullWarpMask) {
  static_assert(Width >= 1 && Width <= kWarpSize && (Width & (Width - 1)) == 0,
                "Width must be a power of two between 1 and 32");
#pragma unroll
  for (int offset = Width / 2; offset > 0; offset /= 2) {
    v = op(v, shfl_xor(v, offset, Width, mask));
  }
  return v;
}

/// Sum of `v` over the warp (or each group of Width lanes), returned to every lane.
template <int Width = kWarpSize, class T>
__device__ __forceinline__ T warp_reduce_sum(T v, unsigned mask = kFullWarpMask) {
  return warp_reduce<Width>(v, Sum{}, mask);
}

/// Maximum of `v` over the warp (or each group of Width lanes), returned to every lane.
template <int Width = kWarpSize, class T>
__device__ __forceinline__ T warp_reduce_max(T v, unsigned mask = kFullWarpMask) {
  return warp_reduce<Width>(v, Max{}, mask);
}

/// Minimum of `v` over the warp (or each group of Width lanes), returned to every lane.
template <int Width = kWarpSize, class T>
__device__ __forceinline__ T warp_reduce_min(T v, unsigned mask = kFullWarpMask) {
  return warp_reduce<Width>(v, Min{}, mask);
}

}  // namespace kernelpro
