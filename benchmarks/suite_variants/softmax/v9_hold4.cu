// launch: {"grid": ["min(N, 132)"], "block": [544], "shared_bytes": "4 * C + 64"}
// Row softmax, v6_ws with the row's first 4 chunks (64 KB) held in registers (8 float4 per
// consumer thread): the online pass copies them out of shared memory and releases them at once, so
// the next row's first 4 chunks load while this row is still in its online pass and write pass (v6_ws
// releases a chunk only when the write pass is done with it, so the next row starts loading then).
// The write pass takes those chunks from the registers. Everything else as v6_ws, whose description follows:
// Row softmax, hand-written for sm_90: persistent, one block per SM (132 on the H200) walking rows
// gridDim.x apart with the whole row in shared memory (201 KB at C 50257), as 16 KB chunks. One
// producer warp copies them in with bulk copies (cp.async.bulk, TMA): a "full" mbarrier per chunk
// counts its bytes, an "empty" one the 16 consumer warps done writing it out, and the producer starts
// the next row's chunk b as soon as chunk b's empty barrier completes, so the next row is in flight
// while this one is written and no registers hold loads. The consumers keep a running max and
// rescaled sum (online softmax) as each chunk lands, meet once per row (a named barrier of 512), and
// write from shared memory. Exponentials are one FFMA and one ex2 (exp(x - m) = 2^(x log2e - m log2e)),
// and the write pass folds 1/sum into the exponent. In the CPU emulator (KP_EMULATOR_HOOKS), and for
// unaligned pointers or rows longer than the launch's shared memory, the consumers read DRAM twice
// and the producer warp idles. (Earlier rewrites and the measurements that chose this one:
// benchmarks/suite_variants/softmax and its README.)
#include <cfloat>

#define NC 512        // consumer threads (16 warps)
#define NW (NC / 32)  // consumer warps
#define CH 1024       // float4 per chunk (16 KB): two per consumer thread
#define RH 4        // chunks of a row held in registers
#define MAXCH 16      // chunk buffers: rows up to 16 x 16 KB (more than shared memory holds)

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
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done) : "r"(smem_addr(bar)), "r"(parity) : "memory");
    if (done) break;
    if (clock64() - start > (1ll << 32)) __trap();  // about 2 s
  }
}

__device__ __forceinline__ void arrive(unsigned long long* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
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

__global__ void __launch_bounds__(NC + 32, 1)
softmax_forward(float* __restrict__ out, const float* __restrict__ inp, int N, int C) {
  extern __shared__ float4 cache[];
  __shared__ float pm[2][NW], ps[2][NW];  // by row parity: one consumer barrier per row
  __shared__ unsigned long long full[MAXCH], empty[MAXCH];  // 8-byte aligned, as mbarriers need
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int nch = (C / 4 + CH - 1) / CH;  // chunks of every row (the last ones may be empty)
  const bool aligned = (((size_t)inp | (size_t)out) & 15) == 0;
  const bool cached = aligned && nch >= 1 && nch <= MAXCH && (unsigned)(C / 4) * 16u <= dyn_smem_bytes();
#ifndef KP_EMULATOR_HOOKS
  if (t == 0) {
    for (int b = 0; b < MAXCH; ++b) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&full[b])));
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(&empty[b])), "n"(NW));
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();  // the barriers are set up before anyone uses them
  if (warp == NW) {  // the producer
    if (lane == 0 && cached) {
      unsigned k = 0;
      for (int row = blockIdx.x; row < N; row += gridDim.x, ++k) {
        const float* x = inp + (size_t)row * C;
        const int head = min(C, head_of(x)), nvec = (C - head) / 4;
        const float4* xv = reinterpret_cast<const float4*>(x + head);
        for (int b = 0; b < nch; ++b) {
          if (k > 0) wait_bar(&empty[b], (k - 1) & 1u);  // the row before has been written out of it
          const int c0 = b * CH, c1 = min(nvec, c0 + CH);
          const unsigned bytes = (unsigned)max(0, c1 - c0) * 16u;
          asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(&full[b])),
                       "r"(bytes) : "memory");
          if (bytes)
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                         ::"r"(smem_addr(cache + c0)), "l"(xv + c0), "r"(bytes), "r"(smem_addr(&full[b]))
                         : "memory");
        }
      }
    }
    return;  // the copies land without it
  }
#endif
  unsigned par = 0;  // the row's parity: of the full barriers' phase and of pm, ps
  for (int row = blockIdx.x; row < N; row += gridDim.x, par ^= 1u) {
    const float* x = inp + (size_t)row * C;
    float* y = out + (size_t)row * C;
    // unaligned pointers: no body, every element from the head and tail loops
    const int head = aligned ? min(C, head_of(x)) : 0, nvec = aligned ? (C - head) / 4 : 0, tail = head + nvec * 4;
    const float4* xv = reinterpret_cast<const float4*>(x + head);
    float4* yv = reinterpret_cast<float4*>(y + head);
    const int tc = t < NC ? t : nvec;  // the emulator's idle producer warp takes no element
    float m = -INFINITY, s = 0.0f;
    float4 held[RH][2];  // chunks 0 .. RH-1 of the row (cached path)
    (void)held;
    if (cached) {
#ifndef KP_EMULATOR_HOOKS
#pragma unroll
      for (int b = 0; b < RH; ++b) {
        if (b < nch) {
          wait_bar(&full[b], par);
#pragma unroll
          for (int u = 0; u < 2; ++u) {  // CH = 2 NC: two float4 of the chunk per thread
            const int k = b * CH + tc + u * NC;
            held[b][u] = k < nvec ? cache[k] : make_float4(0.f, 0.f, 0.f, 0.f);
            if (k < nvec) online4(m, s, held[b][u]);
          }
          __syncwarp();
          if (lane == 0) arrive(&empty[b]);  // in registers now: the next row's chunk b may land
        }
      }
      for (int b = RH; b < nch; ++b) {
        wait_bar(&full[b], par);
        const int c1 = min(nvec, b * CH + CH);
#pragma unroll 2
        for (int k = b * CH + tc; k < c1; k += NC) online4(m, s, cache[k]);
      }
#endif
    } else {
      for (int k = tc; k < nvec; k += NC) online4(m, s, __ldcs(xv + k));
    }
    if (t < head) online1(m, s, x[t]);
    for (int j = tail + t; j < C && t < NC; j += NC) online1(m, s, x[j]);
    for (int o = 16; o > 0; o >>= 1) merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
    if (lane == 0 && warp < NW) { pm[par][warp] = m; ps[par][warp] = s; }
    consumers_sync();
    m = lane < NW ? pm[par][lane] : -INFINITY;
    s = lane < NW ? ps[par][lane] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
    const float o = -fmaf(m, L2E, log2f(s));
    if (t < head) y[t] = ex2(fmaf(x[t], L2E, o));
    for (int j = tail + t; j < C && t < NC; j += NC) y[j] = ex2(fmaf(x[j], L2E, o));
    if (cached) {
#ifndef KP_EMULATOR_HOOKS
#pragma unroll
      for (int b = 0; b < RH; ++b)
#pragma unroll
        for (int u = 0; u < 2; ++u) {
          const int k = b * CH + tc + u * NC;
          if (b < nch && k < nvec) __stcs(yv + k, scaled4(held[b][u], o));
        }
      for (int b = RH; b < nch; ++b) {
        const int c1 = min(nvec, b * CH + CH);
#pragma unroll 2
        for (int k = b * CH + tc; k < c1; k += NC) {
          __stcs(yv + k, scaled4(cache[k], o));
        }
        __syncwarp();
        if (lane == 0) arrive(&empty[b]);  // this warp is done with the chunk: the next row may land there
      }
#endif
    } else {
      for (int k = tc; k < nvec; k += NC) {
        __stcs(yv + k, scaled4(xv[k], o));
      }
    }
  }
}
