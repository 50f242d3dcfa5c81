// launch: {"grid": ["cdiv(B * T * C, 4096)"], "block": [256]}
// Token + position embeddings: each thread moves 2 packs of 8 bf16 (16 bytes), all loads issued
// before the adds; packs of one block are contiguous (coalesced per warp). C % 8 != 0: element by element.
#include <cuda_bf16.h>
typedef __nv_bfloat16 floatX;
struct alignas(16) pack8 { floatX v[8]; };

template <class T> __device__ __forceinline__ T ld_plain(const T* p) { return *p; }
template <class T> __device__ __forceinline__ T ld_cs(const T* p) {
  T r; const int4 v = __ldcs(reinterpret_cast<const int4*>(p)); memcpy(&r, &v, sizeof(T)); return r; }
template <class T> __device__ __forceinline__ void st_plain(T* p, const T& v) { *p = v; }
template <class T> __device__ __forceinline__ void st_cs(T* p, const T& v) {
  int4 w; memcpy(&w, &v, sizeof(T)); __stcs(reinterpret_cast<int4*>(p), w); }
#define U 2
__global__ void __launch_bounds__(256) encoder_forward(floatX* __restrict__ out, const int* __restrict__ tokens,
                                const floatX* __restrict__ wte, const floatX* __restrict__ wpe,
                                int B, int T, int C) {
  if (C % 8 == 0) {
    const int c8 = C / 8;
    const int total = B * T * c8;
    const int first = blockIdx.x * (blockDim.x * U) + threadIdx.x;
    pack8 a[U], p[U];
    int bt[U], c[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int i = first + u * (int)blockDim.x;
      bt[u] = i / c8;
      c[u] = (i - bt[u] * c8) * 8;
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (first + u * (int)blockDim.x < total) {
        const int tok = tokens[bt[u]];
        a[u] = ld_plain(reinterpret_cast<const pack8*>(wte + (size_t)tok * C + c[u]));
        p[u] = *reinterpret_cast<const pack8*>(wpe + (size_t)(bt[u] % T) * C + c[u]);
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (first + u * (int)blockDim.x < total) {
        pack8 o;
#pragma unroll
        for (int k = 0; k < 8; ++k) o.v[k] = __float2bfloat16(__bfloat162float(a[u].v[k]) + __bfloat162float(p[u].v[k]));
        st_plain(reinterpret_cast<pack8*>(out + (size_t)bt[u] * C + c[u]), o);
      }
    }
  } else {
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long total = (long long)B * T * C;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
      const int bt = (int)(i / C), c = (int)(i % C), t = bt % T;
      out[i] = __float2bfloat16(__bfloat162float(wte[(size_t)tokens[bt] * C + c]) +
                                __bfloat162float(wpe[(size_t)t * C + c]));
    }
  }
}
