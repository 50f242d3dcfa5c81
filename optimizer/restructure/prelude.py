"""The device helpers restructured kernels call, inserted once per file.

Reductions use the xor butterfly, so every lane ends with the same value (the operators are
commutative, so both partners compute the same result bit for bit). Block reductions keep
their partials in a raw __shared__ buffer (no constructor runs for class types such as
__nv_bfloat16) and end with a barrier so the buffer can be reused.
"""
from __future__ import annotations

import re

GUARD = "KERNELPRO_RESTRUCTURE_HELPERS"

PRELUDE = r"""#ifndef KERNELPRO_RESTRUCTURE_HELPERS
#define KERNELPRO_RESTRUCTURE_HELPERS
// Helpers added by KernelPro's restructuring transforms: element types of any pointer,
// packed (vector) accesses, and warp/block all-reductions with shuffles.
template <class T> struct kp_elem { using type = T; };
template <class T> struct kp_elem<T&> { using type = typename kp_elem<T>::type; };
template <class T> struct kp_elem<const T> { using type = typename kp_elem<T>::type; };
template <class T> struct kp_elem<volatile T> { using type = typename kp_elem<T>::type; };
template <class T, int N> struct alignas(sizeof(T) * N) kp_pack { T v[N]; };
// identities of max and min for a type known only at instantiation (a template parameter)
template <class T> struct kp_limits {  // floating types: the infinities
  static __device__ __forceinline__ T lowest() { return T(-INFINITY); }
  static __device__ __forceinline__ T highest() { return T(INFINITY); }
};
template <class T> struct kp_int_limits {
  static __device__ __forceinline__ T lowest() { return T(~T(0)) < T(0) ? T(1ull << (8 * sizeof(T) - 1)) : T(0); }
  static __device__ __forceinline__ T highest() { return T(~lowest()); }
};
template <> struct kp_limits<int> : kp_int_limits<int> {};
template <> struct kp_limits<unsigned> : kp_int_limits<unsigned> {};
template <> struct kp_limits<long> : kp_int_limits<long> {};
template <> struct kp_limits<unsigned long> : kp_int_limits<unsigned long> {};
template <> struct kp_limits<long long> : kp_int_limits<long long> {};
template <> struct kp_limits<unsigned long long> : kp_int_limits<unsigned long long> {};
template <> struct kp_limits<short> : kp_int_limits<short> {};
template <> struct kp_limits<unsigned short> : kp_int_limits<unsigned short> {};
template <> struct kp_limits<signed char> : kp_int_limits<signed char> {};
template <> struct kp_limits<unsigned char> : kp_int_limits<unsigned char> {};

// threads of a block per row that follows the row's length: `per` elements per thread, in
// whole warps, 64 to 1024 (the launch's block; host and device)
__host__ __device__ __forceinline__ unsigned kp_team_threads(long long len, int per) {
  const long long t = 32 * ((len + 32LL * per - 1) / (32LL * per));
  return (unsigned)(t < 64 ? 64 : t > 1024 ? 1024 : t);
}

template <class T, class F> __device__ __forceinline__ T kp_warp_allreduce(T v, F f) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = f(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

template <class T, class F> __device__ __forceinline__ T kp_block_allreduce(T v, F f, T id) {
  alignas(16) __shared__ unsigned char kp_raw[32 * sizeof(T)];
  T* buf = reinterpret_cast<T*>(kp_raw);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, nw = (blockDim.x + 31) >> 5;
  v = kp_warp_allreduce(v, f);
  if (lane == 0) buf[warp] = v;
  __syncthreads();
  v = lane < nw ? buf[lane] : id;
  v = kp_warp_allreduce(v, f);
  __syncthreads();
  return v;
}

template <class M, class S, class E> __device__ __forceinline__ void kp_online_merge(M& m, S& s, M m2, S s2, E ex) {
  const M mn = m2 > m ? m2 : m;
  const S a = (m == mn) ? s : s * (S)ex(m - mn);
  const S b = (m2 == mn) ? s2 : s2 * (S)ex(m2 - mn);
  m = mn;
  s = a + b;
}

template <class M, class S, class E> __device__ __forceinline__ void kp_warp_online(M& m, S& s, E ex) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const M m2 = __shfl_xor_sync(0xffffffffu, m, o);
    const S s2 = __shfl_xor_sync(0xffffffffu, s, o);
    kp_online_merge(m, s, m2, s2, ex);
  }
}

template <class M, class S, class E> __device__ __forceinline__ void kp_block_online(M& m, S& s, E ex) {
  alignas(16) __shared__ unsigned char kp_raw[32 * sizeof(M) + 32 * sizeof(S)];
  M* bm = reinterpret_cast<M*>(kp_raw);
  S* bs = reinterpret_cast<S*>(kp_raw + 32 * sizeof(M));
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, nw = (blockDim.x + 31) >> 5;
  kp_warp_online(m, s, ex);
  if (lane == 0) { bm[warp] = m; bs[warp] = s; }
  __syncthreads();
  m = lane < nw ? bm[lane] : M(-INFINITY);
  s = lane < nw ? bs[lane] : S(0);
  kp_warp_online(m, s, ex);
  __syncthreads();
}

// A load that streams past the caches (evict first), for data read once: a pack of 4, 8 or 16
// bytes goes through the integer vector of its size.
template <class P> __device__ __forceinline__ P kp_ldcs(const P* p) {
#ifdef KP_EMULATOR_HOOKS
  return *p;
#else
  P r;
  if constexpr (sizeof(P) == 16 && alignof(P) == 16) {
    const int4 v = __ldcs(reinterpret_cast<const int4*>(p));
    memcpy(&r, &v, 16);
  } else if constexpr (sizeof(P) == 8 && alignof(P) == 8) {
    const int2 v = __ldcs(reinterpret_cast<const int2*>(p));
    memcpy(&r, &v, 8);
  } else if constexpr (sizeof(P) == 4 && alignof(P) == 4) {
    const int v = __ldcs(reinterpret_cast<const int*>(p));
    memcpy(&r, &v, 4);
  } else {
    r = *p;
  }
  return r;
#endif
}

#ifndef KP_EMULATOR_HOOKS
// A row kept in dynamic shared memory (the launch's third parameter): the bytes the launch gave,
// and the buffer. A kernel launched with fewer bytes than a row needs reads the row again instead.
__device__ __forceinline__ unsigned kp_dynamic_smem_bytes() {
  unsigned r = 0;
#ifdef __CUDA_ARCH__
  asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
#endif
  return r;
}
template <class P> __device__ __forceinline__ P* kp_row_cache() {
  extern __shared__ __align__(16) unsigned char kp_dyn_raw[];
  return reinterpret_cast<P*>(kp_dyn_raw);
}
#endif
#endif  // KERNELPRO_RESTRUCTURE_HELPERS
"""


def with_prelude(text: str) -> str:
    """text with the helpers inserted after its last top-of-file #include (once)."""
    if GUARD in text:
        return text
    lines = text.split("\n")
    at = 0
    for i, ln in enumerate(lines):
        s = ln.strip()
        if s.startswith("#include") or s.startswith("#pragma once"):
            at = i + 1
        elif s and not s.startswith(("//", "/*", "*", "#")):
            break
    block = PRELUDE.rstrip("\n").split("\n")
    return "\n".join(lines[:at] + ([""] if at else []) + block + [""] + lines[at:])


def prelude_line_count() -> int:
    return PRELUDE.count("\n") + 1


def strip_prelude(text: str) -> str:
    """text without the helpers (to compare sources before and after a transform)."""
    return re.sub(r"#ifndef KERNELPRO_RESTRUCTURE_HELPERS.*?#endif  // KERNELPRO_RESTRUCTURE_HELPERS\n\n?", "",
                  text, flags=re.S)


COLUMN_GUARD = "KERNELPRO_COLUMN_HELPERS"

COLUMN_PRELUDE = r"""#ifndef KERNELPRO_COLUMN_HELPERS
#define KERNELPRO_COLUMN_HELPERS
#include <cooperative_groups.h>
// Column reductions added by KernelPro: a block of 32 columns x blockDim.y row groups, and
// optionally a cluster of gridDim.y blocks along the rows, combined in (distributed) shared
// memory. The total is valid on threadIdx.y == 0 of the cluster's first block.
// N neighbouring columns per thread are combined as one pack: one round of barriers for the
// pack instead of one per column (each column's operations in the same order).
template <class T, int N, class F> __device__ __forceinline__ void kp_col_reduce_n(T (&v)[N], F f) {
  alignas(16) __shared__ unsigned char kp_rawn[32 * 32 * sizeof(T) * N];
  kp_pack<T, N>* buf = reinterpret_cast<kp_pack<T, N>*>(kp_rawn);
  kp_pack<T, N> p;
#pragma unroll
  for (int i = 0; i < N; ++i) p.v[i] = v[i];
  buf[threadIdx.y * blockDim.x + threadIdx.x] = p;
  __syncthreads();
  if (threadIdx.y == 0)
    for (unsigned k = 1; k < blockDim.y; ++k) {
      const kp_pack<T, N> q = buf[k * blockDim.x + threadIdx.x];
#pragma unroll
      for (int i = 0; i < N; ++i) v[i] = f(v[i], q.v[i]);
    }
  __syncthreads();
}

template <class T, int N, class F> __device__ __forceinline__ void kp_cluster_col_reduce_n(T (&v)[N], F f) {
  kp_col_reduce_n(v, f);
  alignas(16) __shared__ unsigned char kp_crawn[32 * sizeof(T) * N];
  kp_pack<T, N>* part = reinterpret_cast<kp_pack<T, N>*>(kp_crawn);
  cooperative_groups::cluster_group cl = cooperative_groups::this_cluster();
  if (threadIdx.y == 0) {
    kp_pack<T, N> p;
#pragma unroll
    for (int i = 0; i < N; ++i) p.v[i] = v[i];
    part[threadIdx.x] = p;
  }
  cl.sync();
  if (cl.block_rank() == 0 && threadIdx.y == 0)
    for (unsigned r = 1; r < cl.num_blocks(); ++r) {
      const kp_pack<T, N> q = cl.map_shared_rank(part, r)[threadIdx.x];
#pragma unroll
      for (int i = 0; i < N; ++i) v[i] = f(v[i], q.v[i]);
    }
  cl.sync();
}

// One column per thread: a pack of one.
template <class T, class F> __device__ __forceinline__ T kp_col_reduce(T v, F f) {
  T a[1] = {v};
  kp_col_reduce_n(a, f);
  return a[0];
}

template <class T, class F> __device__ __forceinline__ T kp_cluster_col_reduce(T v, F f) {
  T a[1] = {v};
  kp_cluster_col_reduce_n(a, f);
  return a[0];
}
#endif  // KERNELPRO_COLUMN_HELPERS
"""


def with_column_prelude(text: str) -> str:
    if COLUMN_GUARD in text:
        return text
    t = with_prelude(text)
    i = t.index("#endif  // KERNELPRO_RESTRUCTURE_HELPERS") + len("#endif  // KERNELPRO_RESTRUCTURE_HELPERS\n")
    return t[:i] + COLUMN_PRELUDE + t[i:]
