// launch: {"block": [8, 32], "grid": ["cdiv(OC, 32)", 8]}
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
#ifndef KERNELPRO_COLUMN_HELPERS
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

// Bias gradient, one thread per output column summing down the rows.
__global__ __cluster_dims__(1, 8, 1) void bias_backward(float* dbias, const float* dout, int N, int OC) {
  if ((OC) <= 0) return;  // kernelpro: nothing to reduce (every thread leaves together)
    // kernelpro: 4 neighbouring columns per thread, rows split over threadIdx.y and blockIdx.y (a cluster of 8 blocks)
    const long long kp_c0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * 4;
    float kp_acc_sum[4];
    #pragma unroll
    for (int kp_v = 0; kp_v < 4; ++kp_v) {  // each column's starting values
      const int col = (int)(kp_c0 + kp_v < (OC) ? kp_c0 + kp_v : (OC) - 1);
      float sum = 0.0f;
      kp_acc_sum[kp_v] = (threadIdx.y == 0 && blockIdx.y == 0) ? sum : 0;
    }
    const bool kp_pk = kp_c0 + 4 <= (OC) && ((unsigned long long)(const void*)&dout[(long long)(OC) * (long long)((0)) + (long long)(kp_c0)] % (4 * sizeof(typename kp_elem<decltype(dout[0])>::type))) == 0 && ((unsigned long long)(const void*)&dout[(long long)(OC) * (long long)((0) + 1) + (long long)(kp_c0)] % (4 * sizeof(typename kp_elem<decltype(dout[0])>::type))) == 0;
    if (kp_pk) {
      #pragma unroll 8  // several rows' loads in flight per thread
      for (int kp_r = (int)((0) + threadIdx.y + blockIdx.y * blockDim.y); kp_r < (int)((N)); kp_r += (int)(blockDim.y * gridDim.y)) {
        int r = (int)kp_r;
        {
          const kp_pack<typename kp_elem<decltype(dout[0])>::type, 4> kp_q0 = *reinterpret_cast<const kp_pack<typename kp_elem<decltype(dout[0])>::type, 4>*>(&dout[(long long)(OC) * (long long)(r) + (long long)(kp_c0)]);
          #pragma unroll
          for (int kp_v = 0; kp_v < 4; ++kp_v) {
            const int col = (int)(kp_c0 + kp_v < (OC) ? kp_c0 + kp_v : (OC) - 1);
            auto& sum = kp_acc_sum[kp_v];
            {
              sum += kp_q0.v[kp_v];
            }
          }
        }
      }
    } else {
      #pragma unroll 8  // several rows' loads in flight per thread
      for (int kp_r = (int)((0) + threadIdx.y + blockIdx.y * blockDim.y); kp_r < (int)((N)); kp_r += (int)(blockDim.y * gridDim.y)) {
        int r = (int)kp_r;
        {
          #pragma unroll
          for (int kp_v = 0; kp_v < 4; ++kp_v) {
            const int col = (int)(kp_c0 + kp_v < (OC) ? kp_c0 + kp_v : (OC) - 1);
            auto& sum = kp_acc_sum[kp_v];
            {
              sum += dout[r * OC + col];
            }
          }
        }
      }
    }
    kp_cluster_col_reduce_n(kp_acc_sum, [](auto a, auto b) { return a + b; });
    if (threadIdx.y == 0 && blockIdx.y == 0) {
      for (int kp_v = 0; kp_v < 4; ++kp_v) {
        if (kp_c0 + kp_v >= (OC)) break;
        const int col = (int)(kp_c0 + kp_v);
        auto& sum = kp_acc_sum[kp_v];
        dbias[col] = sum;
      }
    }
}
