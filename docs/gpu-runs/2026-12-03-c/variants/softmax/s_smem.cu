// launch: {"grid": ["N"], "block": [1024], "shared_bytes": "4 * C + 16"}
// Row softmax: a block per row; the row is kept in dynamic shared memory (one read of DRAM,
// one write), one online pass with 4 float4 loads in flight per thread, then the write pass
// from shared memory. Rows longer than the shared memory given re-read global memory.
#include <cfloat>

__device__ __forceinline__ unsigned dyn_smem_bytes() {
  unsigned r;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
  return r;
}

__device__ __forceinline__ void online4(float& m, float& s, float4 v) {
  const float mm = fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w));
  if (mm > m) {
    s *= __expf(m - mm);
    m = mm;
  }
  s += __expf(v.x - m) + __expf(v.y - m) + __expf(v.z - m) + __expf(v.w - m);
}

__device__ __forceinline__ void online1(float& m, float& s, float v) {
  if (v > m) {
    s *= __expf(m - v);
    m = v;
  }
  s += __expf(v - m);
}

__device__ __forceinline__ void merge(float& m, float& s, float om, float os) {
  const float mm = fmaxf(m, om);
  if (mm == -INFINITY) return;
  s = s * __expf(m - mm) + os * __expf(om - mm);
  m = mm;
}

#define U 4
__global__ void __launch_bounds__(1024, 1) softmax_forward(float* __restrict__ out, const float* __restrict__ inp,
                                                           int N, int C) {
  extern __shared__ float4 cache[];
  __shared__ float pm[32], ps[32];
  const int row = blockIdx.x;
  if (row >= N) return;
  const float* x = inp + (size_t)row * C;
  float* y = out + (size_t)row * C;
  const int head = min(C, (int)((16 - ((size_t)x & 15)) & 15) / 4);
  const int nvec = (C - head) / 4;
  const int tail = head + nvec * 4;
  const float4* xv = reinterpret_cast<const float4*>(x + head);
  const bool cached = (unsigned)nvec * 16u <= dyn_smem_bytes();
  const int t = threadIdx.x, nt = blockDim.x;
  float m = -INFINITY, s = 0.0f;
  int i = t;
  for (; i + (U - 1) * nt < nvec; i += U * nt) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = __ldcs(xv + i + u * nt);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (cached) cache[i + u * nt] = v[u];
      online4(m, s, v[u]);
    }
  }
  for (; i < nvec; i += nt) {
    const float4 v = __ldcs(xv + i);
    if (cached) cache[i] = v;
    online4(m, s, v);
  }
  if (t < head) online1(m, s, x[t]);
  for (int j = tail + t; j < C; j += nt) online1(m, s, x[j]);
  for (int o = 16; o > 0; o >>= 1) merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
  const int warp = t / 32, lane = t % 32;
  if (lane == 0) { pm[warp] = m; ps[warp] = s; }
  __syncthreads();
  m = lane < nt / 32 ? pm[lane] : -INFINITY;
  s = lane < nt / 32 ? ps[lane] : 0.0f;
  for (int o = 16; o > 0; o >>= 1) merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
  const float inv = 1.0f / s;
  float4* yv = reinterpret_cast<float4*>(y + head);
  for (int k = t; k < nvec; k += nt) {
    const float4 v = cached ? cache[k] : xv[k];
    __stcs(yv + k, make_float4(__expf(v.x - m) * inv, __expf(v.y - m) * inv, __expf(v.z - m) * inv, __expf(v.w - m) * inv));
  }
  if (t < head) y[t] = __expf(x[t] - m) * inv;
  for (int j = tail + t; j < C; j += nt) y[j] = __expf(x[j] - m) * inv;
}
