// launch: {"grid": ["2 * min(N, 66)"], "block": [544], "shared_bytes": "32 * cdiv(C, 8)"}
// Row softmax, v6_ws with the row split over a cluster of 2 blocks (two SMs) so that each block can
// hold two half rows: one is written out while the next but one lands in the other. Persistent: 66
// clusters (132 SMs) walk rows 66 apart. In each block a producer warp copies the block's half rows
// in as 16 KB chunks (cp.async.bulk, TMA; "full" and "empty" mbarriers per chunk of each buffer), and
// starts row k + 2's chunk b as soon as row k's chunk b is written out, so a whole half row is always
// in flight (v6_ws, one row buffer per SM, loads the next row only while this one is written). The
// halves' max and sum meet through distributed shared memory: each block stores its pair into the
// peer's slot and arrives on the peer's mbarrier (by row parity, so no cluster barrier per row).
// Exponentials as in v6_ws (one FFMA and one ex2; 1/sum folded into the write pass's exponent).
// sm_90 only. In the CPU emulator (KP_EMULATOR_HOOKS), and for unaligned pointers or rows longer than
// the launch's shared memory, the consumers read DRAM twice, the producer warp idles, and (emulator)
// the halves meet through cluster.sync and map_shared_rank.
#include <cfloat>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define NC 512        // consumer threads (16 warps)
#define NW (NC / 32)  // consumer warps
#define CH 1024       // float4 per chunk (16 KB): two per consumer thread
#define MAXCH 8       // chunks of a half row: up to 8 x 16 KB (two halves fill shared memory before that)

__device__ __forceinline__ unsigned dyn_smem_bytes() {
#ifdef KP_EMULATOR_HOOKS
  return 0;  // no bulk copies: the emulator has no mbarriers
#else
  unsigned r;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
  return r;
#endif
}

// the consumers' barrier (the producer warp is elsewhere: a named barrier of NC threads)
__device__ __forceinline__ void consumers_sync() {
#ifdef KP_EMULATOR_HOOKS
  __syncthreads();  // the producer warp idles with the consumers there
#else
  asm volatile("bar.sync 1, %0;" ::"n"(NC) : "memory");
#endif
}

#ifndef KP_EMULATOR_HOOKS
__device__ __forceinline__ unsigned smem_addr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

// wait for the phase of the given parity (a trap, not a hang, if it never completes)
__device__ __forceinline__ void wait_bar(unsigned long long* bar, unsigned parity) {
  unsigned done = 0;
  const long long start = clock64();
  while (true) {
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done) : "r"(smem_addr(bar)), "r"(parity) : "memory");
    if (done) break;
    if (clock64() - start > (1ll << 32)) __trap();  // about 2 s
  }
}

__device__ __forceinline__ void arrive(unsigned long long* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}

// (m, s) into the peer block's slot, then one arrival on its barrier (release: the store first)
__device__ __forceinline__ void send_peer(float2* slot, unsigned long long* bar, unsigned peer, float m, float s) {
  unsigned rs, rb;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rs) : "r"(smem_addr(slot)), "r"(peer));
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rb) : "r"(smem_addr(bar)), "r"(peer));
  asm volatile("st.shared::cluster.v2.f32 [%0], {%1, %2};" ::"r"(rs), "f"(m), "f"(s) : "memory");
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(rb) : "memory");
}
#endif

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

__device__ __forceinline__ void online4(float& m, float& s, float4 v) {
  const float mm = fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w));
  if (mm > m) {
    s *= ex2((m - mm) * L2E);
    m = mm;
  }
  const float o = -m * L2E;
  s += (ex2(fmaf(v.x, L2E, o)) + ex2(fmaf(v.y, L2E, o))) + (ex2(fmaf(v.z, L2E, o)) + ex2(fmaf(v.w, L2E, o)));
}

// y = exp(x - m) / s = 2^(x log2e + o) with o = -(m log2e + log2 s)
__device__ __forceinline__ float4 scaled4(float4 v, float o) {
  return make_float4(ex2(fmaf(v.x, L2E, o)), ex2(fmaf(v.y, L2E, o)), ex2(fmaf(v.z, L2E, o)), ex2(fmaf(v.w, L2E, o)));
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

// the float4 body of a row starts at its first 16-byte boundary
__device__ __forceinline__ int head_of(const float* x) { return (int)((16 - ((size_t)x & 15)) & 15) / 4; }

__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(NC + 32, 1)
softmax_forward(float* __restrict__ out, const float* __restrict__ inp, int N, int C) {
  extern __shared__ float4 cache[];  // two half-row buffers of HB float4, by row parity
  __shared__ float pm[2][NW], ps[2][NW];  // by row parity: one consumer barrier per row
#ifdef KP_EMULATOR_HOOKS
  __shared__ float2 mine[2];  // this block's (m, s) of the row, by parity, read by the peer
#else
  __shared__ float2 theirs[2];  // the peer's (m, s) of the row, by parity, written by the peer
#endif
  __shared__ unsigned long long full[2][MAXCH], empty[2][MAXCH], xbar[2];  // 8-byte aligned, as mbarriers need
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned part = cluster.block_rank();
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int clusters = gridDim.x / 2;
  const int HB = (C / 4 + 1) / 2;  // float4 of the larger half of any row's body
  const int nch = (HB + CH - 1) / CH;
  const bool aligned = (((size_t)inp | (size_t)out) & 15) == 0;
  const bool cached = aligned && nch >= 1 && nch <= MAXCH && 2u * (unsigned)HB * 16u <= dyn_smem_bytes();
#ifndef KP_EMULATOR_HOOKS
  if (t == 0) {
    for (int p = 0; p < 2; ++p) {
      for (int b = 0; b < MAXCH; ++b) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&full[p][b])));
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(&empty[p][b])), "n"(NW));
      }
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&xbar[p])));
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cluster.sync();  // both blocks' barriers are set up before anyone uses them
  if (warp == NW) {  // the producer
    if (lane == 0 && cached) {
      unsigned k = 0;
      for (int row = blockIdx.x / 2; row < N; row += clusters, ++k) {
        const float* x = inp + (size_t)row * C;
        const int head = min(C, head_of(x)), nvec = (C - head) / 4;
        const int lo = part ? nvec / 2 : 0, hi = part ? nvec : nvec / 2;
        const float4* xv = reinterpret_cast<const float4*>(x + head) + lo;
        float4* buf = cache + (k & 1) * HB;
        for (int b = 0; b < nch; ++b) {
          if (k >= 2) wait_bar(&empty[k & 1][b], ((k >> 1) - 1) & 1u);  // row k-2 has been written out of it
          const int c0 = b * CH, c1 = min(hi - lo, c0 + CH);
          const unsigned bytes = (unsigned)max(0, c1 - c0) * 16u;
          asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(&full[k & 1][b])),
                       "r"(bytes) : "memory");
          if (bytes)
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                         ::"r"(smem_addr(buf + c0)), "l"(xv + c0), "r"(bytes), "r"(smem_addr(&full[k & 1][b]))
                         : "memory");
        }
      }
    }
    return;  // the copies land without it; the peer's arrivals too
  }
#endif
  unsigned k = 0;  // rows done: buffer k & 1, phase (k >> 1) & 1 of its barriers
  for (int row = blockIdx.x / 2; row < N; row += clusters, ++k) {
    const unsigned par = k & 1, ph = (k >> 1) & 1;
    const float* x = inp + (size_t)row * C;
    float* y = out + (size_t)row * C;
    // unaligned pointers: no body, every element from the head and tail loops
    const int head = aligned ? min(C, head_of(x)) : 0, nvec = aligned ? (C - head) / 4 : 0, tail = head + nvec * 4;
    const int lo = part ? nvec / 2 : 0, hi = part ? nvec : nvec / 2, n = hi - lo;
    const float4* xv = reinterpret_cast<const float4*>(x + head) + lo;
    float4* yv = reinterpret_cast<float4*>(y + head) + lo;
    const float4* buf = cache + par * HB;
    const int tc = t < NC ? t : n;  // the emulator's idle producer warp takes no element
    float m = -INFINITY, s = 0.0f;
    if (cached) {
#ifndef KP_EMULATOR_HOOKS
      for (int b = 0; b < nch; ++b) {
        wait_bar(&full[par][b], ph);
        const int c1 = min(n, b * CH + CH);
#pragma unroll 2
        for (int k2 = b * CH + tc; k2 < c1; k2 += NC) online4(m, s, buf[k2]);
      }
#endif
    } else {
      for (int k2 = tc; k2 < n; k2 += NC) online4(m, s, __ldcs(xv + k2));
    }
    if (part == 0 && t < head) online1(m, s, x[t]);
    if (part == 1)
      for (int j = tail + t; j < C && t < NC; j += NC) online1(m, s, x[j]);
    for (int o = 16; o > 0; o >>= 1) merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
    if (lane == 0 && warp < NW) { pm[par][warp] = m; ps[par][warp] = s; }
    consumers_sync();
    m = lane < NW ? pm[par][lane] : -INFINITY;
    s = lane < NW ? ps[par][lane] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
#ifdef KP_EMULATOR_HOOKS
    if (t == 0) mine[par] = make_float2(m, s);
    cluster.sync();
    const float2 other = *cluster.map_shared_rank(&mine[par], part ^ 1u);
#else
    if (t == 0) send_peer(&theirs[par], &xbar[par], part ^ 1u, m, s);
    wait_bar(&xbar[par], ph);
    const float2 other = theirs[par];
#endif
    merge(m, s, other.x, other.y);
    const float o = -fmaf(m, L2E, log2f(s));
    if (part == 0 && t < head) y[t] = ex2(fmaf(x[t], L2E, o));
    if (part == 1)
      for (int j = tail + t; j < C && t < NC; j += NC) y[j] = ex2(fmaf(x[j], L2E, o));
    if (cached) {
#ifndef KP_EMULATOR_HOOKS
      for (int b = 0; b < nch; ++b) {
        const int c1 = min(n, b * CH + CH);
#pragma unroll 2
        for (int k2 = b * CH + tc; k2 < c1; k2 += NC) __stcs(yv + k2, scaled4(buf[k2], o));
        __syncwarp();
        if (lane == 0) arrive(&empty[par][b]);  // this warp is done with the chunk: row k+2 may land there
      }
#endif
    } else {
      for (int k2 = tc; k2 < n; k2 += NC) __stcs(yv + k2, scaled4(xv[k2], o));
    }
  }
}
