// launch: {"grid": ["8 * N"], "block": [256]}
// Row softmax, register-resident over a cluster of 8 blocks of 256: the row's float4 body split into
// 8 parts, each thread holding up to 7 float4 of its block's part in registers, all its loads issued
// before the first use (no loop-carried wait, no shared-memory copy of the row, no bulk copies: up to
// 7 x 16 bytes in flight per thread, about 140 KB per SM at 5 blocks). Each block's max and rescaled
// sum go to the cluster through distributed shared memory (one cluster barrier to publish, every
// block merges the 8 in rank order, a split barrier so no block leaves while a peer reads it), and the
// write pass stores from the registers. Exponentials as in v6_ws (one FFMA and one ex2; 1/sum folded
// into the write's exponent). Rows longer than 8 x 256 x 7 float4 (57344 floats) loop over DRAM twice.
#include <cfloat>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define CL 8    // blocks per row: a cluster
#define NT 256  // threads per block
#define VPT 7   // float4 per thread held in registers

#define L2E 1.4426950408889634f  // log2(e)

__device__ __forceinline__ float ex2(float x) {  // 2^x, the SFU's approximation
#ifdef KP_EMULATOR_HOOKS
  return exp2f(x);
#else
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
#endif
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

// y = exp(x - m) / s = 2^(x log2e + o) with o = -(m log2e + log2 s)
__device__ __forceinline__ float4 scaled4(float4 v, float o) {
  return make_float4(ex2(fmaf(v.x, L2E, o)), ex2(fmaf(v.y, L2E, o)), ex2(fmaf(v.z, L2E, o)), ex2(fmaf(v.w, L2E, o)));
}

__global__ void __cluster_dims__(CL, 1, 1) __launch_bounds__(NT, 5)
softmax_forward(float* __restrict__ out, const float* __restrict__ inp, int N, int C) {
  __shared__ float pm[NT / 32], ps[NT / 32];
  __shared__ float2 mine;  // this block's (m, s), read by the cluster
  cg::cluster_group cluster = cg::this_cluster();
  const int part = (int)cluster.block_rank();
  const int row = min((int)blockIdx.x / CL, N - 1);
  const bool live = (int)blockIdx.x / CL < N;
  const float* x = inp + (size_t)row * C;
  float* y = out + (size_t)row * C;
  const bool aligned = (((size_t)inp | (size_t)out) & 15) == 0;
  // unaligned pointers: no body, every element from the head and tail loops
  const int head = aligned ? min(C, (int)((16 - ((size_t)x & 15)) & 15) / 4) : 0;
  const int nvec = aligned ? (C - head) / 4 : 0, tail = head + nvec * 4;
  const int lo = (int)((long long)nvec * part / CL), hi = (int)((long long)nvec * (part + 1) / CL);
  const float4* xv = reinterpret_cast<const float4*>(x + head);
  float4* yv = reinterpret_cast<float4*>(y + head);
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const bool held = hi - lo <= VPT * NT;  // the part fits in the registers
  float4 v[VPT];
  float m = -INFINITY, s = 0.0f;
  if (live && held) {
#pragma unroll
    for (int u = 0; u < VPT; ++u) {
      const int k = lo + t + u * NT;
      v[u] = k < hi ? __ldcs(xv + k) : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
    }
    float mm = -INFINITY;
#pragma unroll
    for (int u = 0; u < VPT; ++u) mm = fmaxf(mm, fmaxf(fmaxf(v[u].x, v[u].y), fmaxf(v[u].z, v[u].w)));
    if (mm > -INFINITY) {
      m = mm;
      const float o = -m * L2E;
#pragma unroll
      for (int u = 0; u < VPT; ++u)
        s += (ex2(fmaf(v[u].x, L2E, o)) + ex2(fmaf(v[u].y, L2E, o))) + (ex2(fmaf(v[u].z, L2E, o)) + ex2(fmaf(v[u].w, L2E, o)));
    }
  } else if (live) {
    for (int k = lo + t; k < hi; k += NT) {
      const float4 w = __ldcs(xv + k);
      online1(m, s, w.x);
      online1(m, s, w.y);
      online1(m, s, w.z);
      online1(m, s, w.w);
    }
  }
  if (live) {
    if (part == 0 && t < head) online1(m, s, x[t]);
    if (part == CL - 1)
      for (int j = tail + t; j < C; j += NT) online1(m, s, x[j]);
  }
  for (int o = 16; o > 0; o >>= 1) merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
  if (lane == 0) { pm[warp] = m; ps[warp] = s; }
  __syncthreads();
  m = lane < NT / 32 ? pm[lane] : -INFINITY;
  s = lane < NT / 32 ? ps[lane] : 0.0f;
  for (int o = 16; o > 0; o >>= 1) merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
  if (t == 0) mine = make_float2(m, s);
  cluster.sync();
  m = -INFINITY;
  s = 0.0f;
#pragma unroll
  for (int r = 0; r < CL; ++r) {
    const float2 o = *cluster.map_shared_rank(&mine, r);
    merge(m, s, o.x, o.y);
  }
  cluster.barrier_arrive();  // this block has read its peers' shared memory
  if (live) {
    const float o = -fmaf(m, L2E, log2f(s));
    if (held) {
#pragma unroll
      for (int u = 0; u < VPT; ++u) {
        const int k = lo + t + u * NT;
        if (k < hi) __stcs(yv + k, scaled4(v[u], o));
      }
    } else {
      for (int k = lo + t; k < hi; k += NT) __stcs(yv + k, scaled4(xv[k], o));
    }
    if (part == 0 && t < head) y[t] = ex2(fmaf(x[t], L2E, o));
    if (part == CL - 1)
      for (int j = tail + t; j < C; j += NT) y[j] = ex2(fmaf(x[j], L2E, o));
  }
  cluster.barrier_wait();  // the peers have read this block's shared memory before it leaves
}
