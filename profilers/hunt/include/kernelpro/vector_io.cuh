/// \file KernelPro building block: vectorized (64/128-bit) global loads and stores with alignment checks.
/// Wide memory accesses: one LDG.E.128 / STG.E.128 moves 16 bytes per thread instead of
/// four 32-bit accesses, which a memory-bound kernel needs to reach DRAM bandwidth. A wide
/// access must be aligned to its size, so every helper here checks the pointers and falls
/// back to scalar accesses when they are not aligned, and handles the tail that does not
/// fill a whole vector.
///
/// Usage:
///   #include <kernelpro/vector_io.cuh>
///   // y[i] = a * x[i] with 128-bit loads and stores where x and y allow it
///   kernelpro::transform_vectorized<4>(x, y, n, [a] __device__ (float v) { return a * v; });
///   (lambdas need nvcc --extended-lambda; a functor works without it)
#pragma once

#include <cstddef>
#include <cstdint>

namespace kernelpro {

/// True when `p` is aligned to `Bytes` (a power of two), on the host or the device.
template <int Bytes>
__host__ __device__ __forceinline__ bool is_aligned(const void* p) {
  static_assert(Bytes > 0 && (Bytes & (Bytes - 1)) == 0, "Bytes must be a power of two");
  return (reinterpret_cast<uintptr_t>(p) & (Bytes - 1)) == 0;
}

/// N elements of T as one aligned vector: loaded or stored with a single instruction when
/// N * sizeof(T) is 4, 8 or 16 bytes.
template <class T, int N>
struct alignas(sizeof(T) * N) Vec {
  T v[N];
  __host__ __device__ __forceinline__ T& operator[](int i) { return v[i]; }
  __host__ __device__ __forceinline__ const T& operator[](int i) const { return v[i]; }
};

/// Widest vector length (in elements of T, at most 16 bytes) whose alignment every given
/// pointer meets; 1 when some pointer is only element-aligned. Host or device.
template <class T>
__host__ __device__ __forceinline__ int vector_width(const T* a, const T* b = nullptr) {
  const uintptr_t bits = reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b);
  for (int bytes = 16; bytes > static_cast<int>(sizeof(T)); bytes /= 2) {
    if (bytes % sizeof(T) == 0 && (bits & (bytes - 1)) == 0) {
      return bytes / static_cast<int>(sizeof(T));
    }
  }
  return 1;
}

/// Load N consecutive elements from `p` with one wide load (through the read-only path
/// when `p` is const __restrict__ at the call site). `p` must be aligned to N * sizeof(T):
/// check with is_aligned<N * sizeof(T)>(p) or vector_width.
template <int N, class T>
__device__ __forceinline__ Vec<T, N> load_vec(const T* p) {
  return *reinterpret_cast<const Vec<T, N>*>(p);
}

/// Store N consecutive elements to `p` with one wide store; `p` aligned to N * sizeof(T).
template <int N, class T>
__device__ __forceinline__ void store_vec(T* p, const Vec<T, N>& v) {
  *reinterpret_cast<Vec<T, N>*>(p) = v;
}

/// out[i] = f(in[i]) for i < n over the whole grid (grid-stride loop): N elements per
/// access when both pointers are aligned to N * sizeof(T), scalar accesses otherwise and
/// for the last n % N elements. `in` and `out` must not overlap.
template <int N, class T, class F>
__device__ __forceinline__ void transform_vectorized(const T* __restrict__ in, T* __restrict__ out, size_t n, F f) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  const size_t first = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  size_t done = 0;
  if (is_aligned<N * sizeof(T)>(in) && is_aligned<N * sizeof(T)>(out)) {
    const size_t vecs = n / N;
    for (size_t i = first; i < vecs; i += stride) {
      Vec<T, N> v = load_vec<N>(in + i * N);
#pragma unroll
      for (int j = 0; j < N; ++j) {
        v[j] = f(v[j]);
      }
      store_vec<N>(out + i * N, v);
    }
    done = vecs * N;
  }
  for (size_t i = done + first; i < n; i += stride) {
    out[i] = f(in[i]);
  }
}

/// Identity functor for copy_vectorized.
struct Identity {
  template <class T>
  __device__ __forceinline__ T operator()(const T& v) const { return v; }
};

/// Copy n elements from `in` to `out` with wide accesses where the alignment allows.
template <int N, class T>
__device__ __forceinline__ void copy_vectorized(const T* __restrict__ in, T* __restrict__ out, size_t n) {
  transform_vectorized<N>(in, out, n, Identity{});
}

}  // namespace kernelpro
