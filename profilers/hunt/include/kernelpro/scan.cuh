/// \file KernelPro building block: device-wide prefix sum (scan), one pass with decoupled look-back.
/// The array is cut into tiles of TPB x IPT values taken in order from a counter, so a tile only ever
/// waits on tiles already running. A block loads its tile coalesced through shared memory, each thread
/// sums its IPT consecutive values, the warps scan the threads' totals with shuffles and one shared
/// pass adds the warps' totals. The tile publishes its total at once; its first warp then looks back
/// over 32 predecessors at a time, adding their totals up to the nearest published inclusive prefix,
/// and publishes its own. A tile's state is one 64-bit word (flag << 32 | the value's 32 bits), so a
/// flag is never seen without its value: 4-byte element types (int, unsigned, float).
///
/// Usage:
///   #include <kernelpro/scan.cuh>
///   // out[i] = in[0] + ... + in[i] (inclusive) or in[0] + ... + in[i - 1] (exclusive), n elements:
///   cudaError_t e = kernelpro::scan(in, out, n, /*inclusive=*/true, stream);
/// The state words come from cudaMallocAsync on the stream and go back after the launch.
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

namespace kernelpro {

/// The tile's state word: flag in the high 32 bits, the value's bits in the low 32.
template <class T>
__device__ __forceinline__ unsigned scan_bits(T v) {
  return *reinterpret_cast<unsigned*>(&v);
}
/// The value back from the state word's low 32 bits.
template <class T>
__device__ __forceinline__ T scan_value(unsigned bits) {
  return *reinterpret_cast<T*>(&bits);
}

/// One tile of the scan: TPB threads, IPT values each; `state[0]` the tile counter, `state[1 + t]` tile t's word
/// (all zero before the launch). `inclusive`: out[i] includes in[i]. `in` may be `out`: a tile reads all of its
/// values before it writes, and no other tile reads them.
template <class T, int TPB = 256, int IPT = 8>
__global__ void __launch_bounds__(TPB) scan_tiles(const T* in, T* out, long long n,
                                                  unsigned long long* state, bool inclusive) {
  static_assert(sizeof(T) == 4, "the state word holds a 4-byte value");
  constexpr int TILE = TPB * IPT;
  constexpr unsigned long long AGG = 1ull, PREFIX = 2ull;
  __shared__ T stage[TILE + TILE / 32];  // the tile, one pad every 32 values (no bank conflicts)
  __shared__ T warp_tot[TPB / 32];
  __shared__ int tile_s;
  __shared__ T prefix_s;
  const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
  if (tid == 0) tile_s = (int)atomicAdd(state, 1ull);
  __syncthreads();
  const long long t = tile_s, base = t * TILE;
  unsigned long long* tiles = state + 1;
#pragma unroll
  for (int k = 0; k < IPT; ++k) {  // coalesced loads, stored where the thread that sums them reads them
    const int p = k * TPB + tid;
    stage[p + p / 32] = base + p < n ? in[base + p] : T(0);
  }
  __syncthreads();
  T v[IPT];
#pragma unroll
  for (int k = 0; k < IPT; ++k) {
    const int p = tid * IPT + k;
    v[k] = stage[p + p / 32];
  }
#pragma unroll
  for (int k = 1; k < IPT; ++k) v[k] += v[k - 1];
  const T own = v[IPT - 1];
  T x = own;  // the warp's inclusive scan of the threads' totals
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const T y = __shfl_up_sync(0xffffffffu, x, o);
    if (lane >= o) x += y;
  }
  if (lane == 31) warp_tot[w] = x;
  __syncthreads();
  T before = T(0), agg = T(0);
#pragma unroll
  for (int k = 0; k < TPB / 32; ++k) {
    const T s = warp_tot[k];
    if (k < w) before += s;
    agg += s;
  }
  if (w == 0) {
    T excl = T(0);  // the sum of every tile before t
    if (t == 0) {
      if (lane == 0) {
        *reinterpret_cast<volatile unsigned long long*>(tiles) = (PREFIX << 32) | scan_bits(agg);
      }
    } else {
      if (lane == 0) {
        *reinterpret_cast<volatile unsigned long long*>(tiles + t) = (AGG << 32) | scan_bits(agg);
      }
      long long nearest = t - 1;  // the window: tiles nearest - 31 .. nearest, lane 0 the nearest
      while (true) {
        const long long j = nearest - lane;
        const unsigned long long word =
            j >= 0 ? *reinterpret_cast<volatile unsigned long long*>(tiles + j) : (PREFIX << 32);
        const unsigned flag = (unsigned)(word >> 32);
        if (__any_sync(0xffffffffu, flag == 0)) continue;  // someone in the window has published nothing yet
        const unsigned stops = __ballot_sync(0xffffffffu, flag == (unsigned)PREFIX);
        const int stop = stops ? __ffs(stops) - 1 : 32;  // the nearest inclusive prefix
        T mine = lane <= stop ? scan_value<T>((unsigned)word) : T(0);
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) mine += __shfl_xor_sync(0xffffffffu, mine, o);
        excl += mine;
        if (stop < 32) break;
        nearest -= 32;
      }
      if (lane == 0) {
        *reinterpret_cast<volatile unsigned long long*>(tiles + t) = (PREFIX << 32) | scan_bits(T(excl + agg));
      }
    }
    if (lane == 0) prefix_s = excl;
  }
  __syncthreads();
  const T add = prefix_s + before + x - own;  // everything before this thread's first value
#pragma unroll
  for (int k = 0; k < IPT; ++k) {  // back through shared memory, stored coalesced
    const int p = tid * IPT + k;
    stage[p + p / 32] = inclusive ? v[k] + add : (k ? v[k - 1] : T(0)) + add;
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < IPT; ++k) {
    const int p = k * TPB + tid;
    if (base + p < n) out[base + p] = stage[p + p / 32];
  }
}

#ifndef KP_EMULATOR_HOOKS  // (KernelPro's CPU emulator runs the kernel above, not host code)
/// out[i] = in[0] + ... + in[i] (inclusive) or in[0] + ... + in[i - 1] (exclusive) for i < n, on `stream`.
/// `in` and `out` may be the same array. Returns the first CUDA error.
template <class T>
cudaError_t scan(const T* in, T* out, long long n, bool inclusive = true, cudaStream_t stream = nullptr) {
  constexpr int TPB = 256, IPT = 8, TILE = TPB * IPT;
  if (n <= 0) return cudaSuccess;
  const long long tiles = (n + TILE - 1) / TILE;
  if (tiles > 0x7fffffffLL) return cudaErrorInvalidValue;
  unsigned long long* state = nullptr;
  const size_t bytes = sizeof(unsigned long long) * (size_t)(tiles + 1);
  cudaError_t e = cudaMallocAsync(reinterpret_cast<void**>(&state), bytes, stream);
  if (e != cudaSuccess) return e;
  e = cudaMemsetAsync(state, 0, bytes, stream);
  if (e == cudaSuccess) {
    scan_tiles<T, TPB, IPT><<<(unsigned)tiles, TPB, 0, stream>>>(in, out, n, state, inclusive);
    e = cudaGetLastError();
  }
  cudaError_t f = cudaFreeAsync(state, stream);
  return e != cudaSuccess ? e : f;
}
#endif

}  // namespace kernelpro
