// launch: {"grid": ["cdiv(B * H * N * d, 512)"], "block": [128]}
#ifndef KERNELPRO_RESTRUCTURE_HELPERS
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

// (B, N, H, d) -> (B, H, N, d): one thread per output element, its coordinates from the flat index.
__global__ void permute4d(float* out, const float* inp, int B, int N, int H, int d) {
  // kernelpro: 4 consecutive elements per packed access (quotients of the element index are the same across a pack that stays within a row)
  const long long kp_n = (long long)(B * H * N * d);
  for (long long kp_i0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * 4; kp_i0 < kp_n; kp_i0 += (long long)gridDim.x * blockDim.x * 4) {
    typename kp_elem<decltype(out[0])>::type* const kp_g0_a = (typename kp_elem<decltype(out[0])>::type*)(&out[(long long)(((int)kp_i0))]);
    const typename kp_elem<decltype(inp[0])>::type* const kp_g1_a = &inp[(long long)((((int)kp_i0) / (H*N*d))) * (long long)(H) * (long long)(N) * (long long)(d) + (long long)(((((int)kp_i0) / d) % N)) * (long long)(H) * (long long)(d) + (long long)(((((int)kp_i0) / (N*d)) % H)) * (long long)(d) + (long long)((((int)kp_i0) % d))];
    if (kp_i0 + 4 <= kp_n && (long long)(((int)kp_i0) % ((H*N*d))) + 4 <= (long long)((H*N*d)) && (long long)(((int)kp_i0) % ((N*d))) + 4 <= (long long)((N*d)) && (long long)(((int)kp_i0) % (d)) + 4 <= (long long)(d) && (unsigned long long)(const void*)kp_g0_a % (4 * sizeof(typename kp_elem<decltype(out[0])>::type)) == 0 && (unsigned long long)(const void*)kp_g1_a % (4 * sizeof(typename kp_elem<decltype(inp[0])>::type)) == 0) {
      kp_pack<typename kp_elem<decltype(out[0])>::type, 4> kp_g0;
      const kp_pack<typename kp_elem<decltype(inp[0])>::type, 4> kp_g1 = *reinterpret_cast<const kp_pack<typename kp_elem<decltype(inp[0])>::type, 4>*>(kp_g1_a);
      #pragma unroll
      for (int kp_v = 0; kp_v < 4; ++kp_v) {
        const int idx = (int)(kp_i0 + kp_v);
        int b = (idx / (H * N * d));
        int rest = (idx % (H * N * d));
        int h = ((idx / (N * d)) % (H));
        rest = (idx % (N * d));
        int n = ((idx / (d)) % (N));
        int k = (idx % (d));
        kp_g0.v[kp_v] = kp_g1.v[kp_v];
      }
      *reinterpret_cast<kp_pack<typename kp_elem<decltype(out[0])>::type, 4>*>(kp_g0_a) = kp_g0;
    } else {
      for (int kp_v = 0; kp_v < 4 && kp_i0 + kp_v < kp_n; ++kp_v) {
        const int idx = (int)(kp_i0 + kp_v);
        int b = (idx / (H * N * d));
        int rest = (idx % (H * N * d));
        int h = ((idx / (N * d)) % (H));
        rest = (idx % (N * d));
        int n = ((idx / (d)) % (N));
        int k = (idx % (d));
        out[idx] = inp[((b * N + n) * H + h) * d + k];
      }
    }
  }
}
