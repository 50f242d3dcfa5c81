// launch: {"block": [1024], "grid": ["N"], "flags": ["--use_fast_math"]}
#ifndef KERNELPRO_RESTRUCTURE_HELPERS
#define KERNELPRO_RESTRUCTURE_HELPERS
// Helpers added by KernelPro's restructuring transforms: element types of any pointer,
// packed (vector) accesses, and warp/block all-reductions with shuffles.
template <class T> struct kp_elem { using type = T; };
template <class T> struct kp_elem<T&> { using type = typename kp_elem<T>::type; };
template <class T> struct kp_elem<const T> { using type = typename kp_elem<T>::type; };
template <class T> struct kp_elem<volatile T> { using type = typename kp_elem<T>::type; };
template <class T, int N> struct alignas(sizeof(T) * N) kp_pack { T v[N]; };

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
#endif  // KERNELPRO_RESTRUCTURE_HELPERS

// Row softmax, one thread per row, three passes over the row.
__global__ void softmax_forward(float* __restrict__ out, const float* __restrict__ inp, int N, int C) {
  const int kp_lane = threadIdx.x;
  int row = blockIdx.x;
  if (row < N) {
    const float* x = inp + (size_t)row * C;
    float* y = out + (size_t)row * C;
    float maxval = -INFINITY;
    float sum = 0.0f;
    {  // kernelpro: this loop spread over the block (each lane strides the row)
      if (kp_lane != 0) { maxval = -INFINITY; sum = 0; }
      const int kp_s = (0), kp_e = (C);
      const unsigned long long kp_m = 4 * sizeof(typename kp_elem<decltype(x[(0)])>::type), kp_ad = (unsigned long long)(const void*)&x[(kp_s)];
      int kp_a = kp_s + (int)(((kp_m - kp_ad % kp_m) % kp_m) / sizeof(typename kp_elem<decltype(x[(0)])>::type));
      int kp_b = kp_a;  // [kp_a, kp_b): packed; the rest element by element
      if (kp_ad % sizeof(typename kp_elem<decltype(x[(0)])>::type) == 0 && kp_a <= kp_e && ((unsigned long long)(const void*)&x[(kp_a)] % (4 * sizeof(typename kp_elem<decltype(x[(0)])>::type))) == 0) {
        const int kp_nv = (kp_e - kp_a) / 4;
        for (int kp_iq = (int)(kp_lane); kp_iq < (int)(kp_nv); kp_iq += (int)(blockDim.x)) {
          int kp_q = (int)kp_iq;
          {
            const int kp_j0 = kp_a + kp_q * 4;
            kp_pack<typename kp_elem<decltype(x[(0)])>::type, 4> kp_p0 = *reinterpret_cast<const kp_pack<typename kp_elem<decltype(x[(0)])>::type, 4>*>(&x[(kp_j0)]);
            #pragma unroll
            for (int kp_v = 0; kp_v < 4; ++kp_v) {
              const int j = kp_j0 + kp_v;
              {  // kernelpro: running max and rescaled sum (online softmax): two passes in one
                const auto kp_mold = maxval;
                {
                  if (kp_p0.v[kp_v] > maxval) {
                    maxval = kp_p0.v[kp_v];
                  }
                }
                if (maxval != kp_mold) sum = sum * expf(kp_mold - maxval);
                {
                  const typename kp_elem<decltype(y[j])>::type kp_f14_0 = expf(kp_p0.v[kp_v] - maxval);
                  sum += kp_f14_0;
                }
              }
            }
          }
        }
        kp_b = kp_a + kp_nv * 4;
      } else {
        kp_a = kp_s;
        kp_b = kp_s;
      }
      for (int kp_it = (int)(kp_lane); kp_it < (int)((kp_a - kp_s) + (kp_e - kp_b)); kp_it += (int)(blockDim.x)) {
        int kp_t = (int)kp_it;
        {
          const int j = kp_t < kp_a - kp_s ? kp_s + kp_t : kp_b + (kp_t - (kp_a - kp_s));
          {  // kernelpro: running max and rescaled sum (online softmax): two passes in one
            const auto kp_mold = maxval;
            {
              if (x[j] > maxval) {
                maxval = x[j];
              }
            }
            if (maxval != kp_mold) sum = sum * expf(kp_mold - maxval);
            {
              const typename kp_elem<decltype(y[j])>::type kp_f14_0 = expf(x[j] - maxval);
              sum += kp_f14_0;
            }
          }
        }
      }
      kp_block_online(maxval, sum, [](auto x) { return expf(x); });
    }
    {  // kernelpro: this loop spread over the block (each lane strides the row)
      const int kp_s = (0), kp_e = (C);
      const unsigned long long kp_m = 4 * sizeof(typename kp_elem<decltype(y[(0)])>::type), kp_ad = (unsigned long long)(const void*)&y[(kp_s)];
      int kp_a = kp_s + (int)(((kp_m - kp_ad % kp_m) % kp_m) / sizeof(typename kp_elem<decltype(y[(0)])>::type));
      int kp_b = kp_a;  // [kp_a, kp_b): packed; the rest element by element
      if (kp_ad % sizeof(typename kp_elem<decltype(y[(0)])>::type) == 0 && kp_a <= kp_e && ((unsigned long long)(const void*)&y[(kp_a)] % (4 * sizeof(typename kp_elem<decltype(y[(0)])>::type))) == 0 && ((unsigned long long)(const void*)&x[(kp_a)] % (4 * sizeof(typename kp_elem<decltype(x[(0)])>::type))) == 0) {
        const int kp_nv = (kp_e - kp_a) / 4;
        for (int kp_iq = (int)(kp_lane); kp_iq < (int)(kp_nv); kp_iq += (int)(blockDim.x)) {
          int kp_q = (int)kp_iq;
          {
            const int kp_j0 = kp_a + kp_q * 4;
            kp_pack<typename kp_elem<decltype(y[(0)])>::type, 4> kp_p0;
            kp_pack<typename kp_elem<decltype(x[(0)])>::type, 4> kp_p1 = *reinterpret_cast<const kp_pack<typename kp_elem<decltype(x[(0)])>::type, 4>*>(&x[(kp_j0)]);
            #pragma unroll
            for (int kp_v = 0; kp_v < 4; ++kp_v) {
              const int j = kp_j0 + kp_v;
              {
                kp_p0.v[kp_v] = ((typename kp_elem<decltype(y[j])>::type)(expf(kp_p1.v[kp_v] - maxval))) / (sum);
              }
            }
            *reinterpret_cast<kp_pack<typename kp_elem<decltype(y[(0)])>::type, 4>*>(&y[(kp_j0)]) = kp_p0;
          }
        }
        kp_b = kp_a + kp_nv * 4;
      } else {
        kp_a = kp_s;
        kp_b = kp_s;
      }
      for (int kp_it = (int)(kp_lane); kp_it < (int)((kp_a - kp_s) + (kp_e - kp_b)); kp_it += (int)(blockDim.x)) {
        int kp_t = (int)kp_it;
        {
          const int j = kp_t < kp_a - kp_s ? kp_s + kp_t : kp_b + (kp_t - (kp_a - kp_s));
          {
            y[j] = ((typename kp_elem<decltype(y[j])>::type)(expf(x[j] - maxval))) / (sum);
          }
        }
      }
    }
  }
}
