/// \file KernelPro building block: device-wide prefix sum (scan), one pass with decoupled look-back.
/// The array is cut into tiles of TPB x IPT values (512 x 16) taken in order from a counter, so a tile only
/// ever waits on tiles already running. Each warp loads its share with coalesced 16-byte accesses straight
/// into registers (warp-striped), scans it with shuffles, and one shared pass adds the warps' totals. The
/// tile publishes its total at once; its first warp then looks back over 32 predecessors at a time, adding
/// their totals up to the nearest published inclusive prefix, and publishes its own. (The design of the
/// suite's hand-written scan, benchmarks/suite/scan/best.cu: 75% of the DRAM copy ceiling on an H100.) A tile's state is one 64-bit word (flag << 32 | the value's 32 bits), so a
/// flag is never seen without its value: 4-byte element types (int, unsigned, float).
///
/// Usage:
///   #include <kernelpro/scan.cuh>
///   // out[i] = in[0] + ... + in[i] (inclusive) or in[0] + ... + in[i - 1] (exclusive), n elements:
///   cudaError_t e = kernelpro::scan(in, out, n, /*inclusive=*/true, stream);
/// The state words come from the scans' own memory pool on the stream (scan_pool) and go back after the launch.
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

#include <mutex>
#include <type_traits>

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

/// The sum of a value over the warp's 32 lanes (every lane gets it): one redux for 4-byte integers.
template <class T>
__device__ __forceinline__ T scan_warp_sum(T v) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800  // (redux is sm_80+; the emulator has it)
  if constexpr (std::is_integral<T>::value) {
    return __reduce_add_sync(0xffffffffu, v);
  } else
#endif
  {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
  }
}

/// Four consecutive values: one 16-byte load (VEC, the whole four inside the array) or four guarded ones.
template <class T, bool VEC, class I>
__device__ __forceinline__ void scan_load4(const T* in, I pos, I n, T (&v)[4]) {
  if (VEC && pos + 4 <= n) {
    const int4 q = __ldcs(reinterpret_cast<const int4*>(in + pos));
    v[0] = scan_value<T>((unsigned)q.x);
    v[1] = scan_value<T>((unsigned)q.y);
    v[2] = scan_value<T>((unsigned)q.z);
    v[3] = scan_value<T>((unsigned)q.w);
  } else {
#pragma unroll
    for (int e = 0; e < 4; ++e) v[e] = pos + e < n ? in[pos + e] : T(0);
  }
}

/// One tile of the scan: TPB threads, IPT values each (IPT a multiple of 4); `state[0]` the tile counter,
/// `state[1 + t]` tile t's word (all zero before the launch). `inclusive`: out[i] includes in[i]. `in` may be
/// `out`: a tile reads all of its values before it writes, and no other tile reads them. VEC: `in` and `out`
/// 16-byte aligned. Each warp takes 32 x IPT consecutive values as IPT / 4 chunks of 128, lane l the four values
/// 4 l .. 4 l + 3 of each chunk (one coalesced 16-byte access a lane), so nothing goes through shared memory but
/// the warps' totals: each lane scans its four, the chunks are scanned across the lanes by interleaved shuffle
/// scans. The look-back: a warp reads 32 predecessors' words a round; two votes find the nearest inclusive prefix
/// and whether a nearer tile has published nothing yet, one reduction adds the totals up to that prefix.
/// I: the positions' type (int where n plus a tile fits in it: fewer instructions a value).
template <class T, int TPB = 512, int IPT = 16, bool VEC = true, class I = long long>
__global__ void __launch_bounds__(TPB, (TPB <= 512 ? 1536 / TPB : 1))
    scan_tiles(const T* in, T* out, I n, unsigned long long* state, bool inclusive) {
  static_assert(sizeof(T) == 4, "the state word holds a 4-byte value");
  static_assert(IPT % 4 == 0 && TPB % 32 == 0, "chunks of four values a lane, whole warps");
  constexpr int TILE = TPB * IPT, CH = IPT / 4;
  constexpr unsigned long long AGG = 1ull, PREFIX = 2ull;
  __shared__ T warp_tot[TPB / 32];
  __shared__ I tile_s;
  __shared__ T prefix_s;
  const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
  if (tid == 0) tile_s = (I)atomicAdd(state, 1ull);
  __syncthreads();
  const I t = tile_s;
  unsigned long long* tiles = state + 1;
  const I wbase = t * TILE + (I)w * (32 * IPT);  // this warp's first value

  T q[CH][4];  // chunk k: values wbase + 128 k + 4 lane .. + 3, scanned within the lane
#pragma unroll
  for (int k = 0; k < CH; ++k) scan_load4<T, VEC, I>(in, wbase + 128 * k + 4 * lane, n, q[k]);
  T own[CH], x[CH];  // each chunk: this lane's four values' total; the warp's inclusive scan of them
#pragma unroll
  for (int k = 0; k < CH; ++k) {
    q[k][1] += q[k][0];
    q[k][2] += q[k][1];
    q[k][3] += q[k][2];
    own[k] = x[k] = q[k][3];
  }
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
#pragma unroll
    for (int k = 0; k < CH; ++k) {
      const T y = __shfl_up_sync(0xffffffffu, x[k], o);
      if (lane >= o) x[k] += y;
    }
  }
  T run[CH];  // the chunks before chunk k, within the warp
  T wsum = T(0);
#pragma unroll
  for (int k = 0; k < CH; ++k) {
    run[k] = wsum;
    wsum += __shfl_sync(0xffffffffu, x[k], 31);
  }
  if (lane == 0) warp_tot[w] = wsum;
  __syncthreads();
  T before = T(0), agg = T(0);  // the warps before this one; the whole tile
#pragma unroll
  for (int k = 0; k < TPB / 32; ++k) {
    const T s = warp_tot[k];
    if (k < w) before += s;
    agg += s;
  }
  if (w == 0) {
    T excl = T(0);  // the sum of every tile before t
    if (t == 0) {
      if (lane == 0) *reinterpret_cast<volatile unsigned long long*>(tiles) = (PREFIX << 32) | scan_bits(agg);
    } else {
      if (lane == 0) *reinterpret_cast<volatile unsigned long long*>(tiles + t) = (AGG << 32) | scan_bits(agg);
      I nearest = t - 1;  // the window: tiles nearest - 31 .. nearest, lane 0 the nearest
      while (true) {
        const I j = nearest - lane;
        const unsigned long long word =
            j >= 0 ? *reinterpret_cast<volatile unsigned long long*>(tiles + j) : (PREFIX << 32);
        const unsigned flag = (unsigned)(word >> 32);
        const unsigned pre = __ballot_sync(0xffffffffu, flag == (unsigned)PREFIX);  // inclusive prefixes
        const unsigned none = __ballot_sync(0xffffffffu, flag == 0u);                // nothing published
        const unsigned upto = pre ? pre ^ (pre - 1) : 0xffffffffu;  // lanes up to the nearest prefix (or all)
        if (none & upto) continue;  // a tile nearer than the nearest prefix has published nothing yet: again
        excl += scan_warp_sum<T>((upto >> lane) & 1u ? scan_value<T>((unsigned)word) : T(0));
        if (pre) break;
        nearest -= 32;
      }
      if (lane == 0) {
        *reinterpret_cast<volatile unsigned long long*>(tiles + t) = (PREFIX << 32) | scan_bits(T(excl + agg));
      }
    }
    if (lane == 0) prefix_s = excl;
  }
  __syncthreads();
  const T base = prefix_s + before;  // everything before this warp's first value
#pragma unroll
  for (int k = 0; k < CH; ++k) {
    const T add = base + run[k] + x[k] - own[k];  // everything before this lane's values of chunk k
    const I pos = wbase + 128 * k + 4 * lane;
    T o[4];
#pragma unroll
    for (int e = 0; e < 4; ++e) o[e] = inclusive ? q[k][e] + add : (e ? q[k][e - 1] : T(0)) + add;
    if (VEC && pos + 4 <= n) {
      *reinterpret_cast<int4*>(out + pos) =
          make_int4((int)scan_bits(o[0]), (int)scan_bits(o[1]), (int)scan_bits(o[2]), (int)scan_bits(o[3]));
    } else {
#pragma unroll
      for (int e = 0; e < 4; ++e)
        if (pos + e < n) out[pos + e] = o[e];
    }
  }
}

#ifndef KP_EMULATOR_HOOKS  // (KernelPro's CPU emulator runs the kernel above, not host code)
/// The scans' own stream-ordered memory pool on the current device, which keeps what it once held (the default
/// pool gives memory back at every synchronisation, so each call would map its state words again); null where
/// pools are not supported (plain cudaMallocAsync then).
inline cudaMemPool_t scan_pool() {
  static std::mutex lock;
  static cudaMemPool_t pools[64] = {};
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) return nullptr;
  std::lock_guard<std::mutex> hold(lock);
  if (!pools[dev]) {
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    cudaMemPool_t pool = nullptr;
    if (cudaMemPoolCreate(&pool, &props) != cudaSuccess) {
      cudaGetLastError();  // (not sticky: clear it)
      return nullptr;
    }
    unsigned long long keep = ~0ull;  // (cuuint64_t)
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    pools[dev] = pool;
  }
  return pools[dev];
}

/// out[i] = in[0] + ... + in[i] (inclusive) or in[0] + ... + in[i - 1] (exclusive) for i < n, on `stream`.
/// `in` and `out` may be the same array. Returns the first CUDA error.
template <class T>
cudaError_t scan(const T* in, T* out, long long n, bool inclusive = true, cudaStream_t stream = nullptr) {
  constexpr int TPB = 512, IPT = 16, TILE = TPB * IPT;
  if (n <= 0) return cudaSuccess;
  const long long tiles = (n + TILE - 1) / TILE;
  if (tiles > 0x7fffffffLL) return cudaErrorInvalidValue;
  unsigned long long* state = nullptr;
  const size_t bytes = sizeof(unsigned long long) * (size_t)(tiles + 1);
  cudaMemPool_t pool = scan_pool();
  cudaError_t e = pool ? cudaMallocFromPoolAsync(reinterpret_cast<void**>(&state), bytes, pool, stream)
                       : cudaMallocAsync(reinterpret_cast<void**>(&state), bytes, stream);
  if (e != cudaSuccess) return e;
  e = cudaMemsetAsync(state, 0, bytes, stream);
  if (e == cudaSuccess) {
    const bool vec = ((reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out)) & 15) == 0;
    const bool small = n + TILE < 0x7fffffffLL;  // every position (and the last tile's end) fits in an int
    const unsigned g = (unsigned)tiles;
    if (vec && small) {
      scan_tiles<T, TPB, IPT, true, int><<<g, TPB, 0, stream>>>(in, out, (int)n, state, inclusive);
    } else if (small) {
      scan_tiles<T, TPB, IPT, false, int><<<g, TPB, 0, stream>>>(in, out, (int)n, state, inclusive);
    } else if (vec) {
      scan_tiles<T, TPB, IPT, true, long long><<<g, TPB, 0, stream>>>(in, out, n, state, inclusive);
    } else {
      scan_tiles<T, TPB, IPT, false, long long><<<g, TPB, 0, stream>>>(in, out, n, state, inclusive);
    }
    e = cudaGetLastError();
  }
  cudaError_t f = cudaFreeAsync(state, stream);
  return e != cudaSuccess ? e : f;
}
#endif

}  // namespace kernelpro
