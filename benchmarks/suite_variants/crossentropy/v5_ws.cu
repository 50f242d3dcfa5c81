// launch: {"grid": ["min(N, 132)"], "block": [544], "shared_bytes": "131072"}
// Cross-entropy, persistent and warp-specialized: one block per SM (132 on the H200) walks rows
// gridDim.x apart. One producer warp streams the block's rows, chunk after chunk (16 KB of a row's
// 16-byte-aligned body each), through a ring of 8 chunk buffers in shared memory with bulk copies
// (cp.async.bulk, TMA): a "full" mbarrier per buffer counts the copy's bytes, an "empty" one the 16
// consumer warps that have read it, and the producer refills a buffer as soon as its empty barrier
// completes, across row ends too: 128 KB in flight per SM, no registers held for it and no block-wide
// barrier per chunk (v4_ring's __syncthreads per chunk made it slower than best.cu). The consumers
// keep best.cu's online max and rescaled sum and meet once per row (a named barrier of 512).
// sm_90 only. In the CPU emulator (KP_EMULATOR_HOOKS), and for unaligned logits or a launch with
// too little shared memory, the consumers read DRAM themselves and the producer warp idles.
#include <cfloat>

#define NC 512        // consumer threads (16 warps)
#define NW (NC / 32)  // consumer warps
#define CH 1024       // float4 per chunk (16 KB): two per consumer thread
#define R 8           // buffers in the ring

__device__ __forceinline__ unsigned dyn_smem_bytes() {
#ifdef KP_EMULATOR_HOOKS
  return 0;  // no ring: the emulator has no mbarriers
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

// a row's 16-byte-aligned body: its first element and its length in float4 (none if unaligned)
struct Body {
  int head, nvec, nch;
  __device__ Body(const float* x, int V, bool aligned) {
    head = aligned ? min(V, (int)((16 - ((size_t)x & 15)) & 15) / 4) : 0;
    nvec = aligned ? (V - head) / 4 : 0;
    nch = max(1, (nvec + CH - 1) / CH);  // at least one (maybe empty) chunk, so every row takes a buffer
  }
};

__global__ void __launch_bounds__(NC + 32, 1) crossentropy_forward(float* __restrict__ losses,
                                                                     const float* __restrict__ logits,
                                                                     const int* __restrict__ targets, int N, int V) {
  extern __shared__ float4 ring[];
  __shared__ float pm[2][NW], ps[2][NW];  // by row parity: one consumer barrier per row
  __shared__ unsigned long long full[R], empty[R];  // 8-byte aligned, as mbarriers need
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const bool aligned = ((size_t)logits & 15) == 0;
  const bool ringed = aligned && (unsigned)R * CH * 16u <= dyn_smem_bytes();
#ifndef KP_EMULATOR_HOOKS
  if (t == 0) {
    for (int b = 0; b < R; ++b) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&full[b])));
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(&empty[b])), "n"(NW));
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();  // the barriers are set up before anyone uses them
  if (warp == NW) {  // the producer
    if (lane == 0 && ringed) {
      unsigned i = 0;
      for (int row = blockIdx.x; row < N; row += gridDim.x) {
        const float* x = logits + (size_t)row * V;
        const Body b(x, V, aligned);
        const float4* xv = reinterpret_cast<const float4*>(x + b.head);
        for (int c = 0; c < b.nch; ++c, ++i) {
          const unsigned slot = i % R;
          if (i >= R) wait_bar(&empty[slot], (i / R - 1) & 1u);
          const int c0 = c * CH, c1 = min(b.nvec, c0 + CH);
          const unsigned bytes = (unsigned)max(0, c1 - c0) * 16u;
          asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(&full[slot])),
                       "r"(bytes) : "memory");
          if (bytes)
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                         ::"r"(smem_addr(ring + slot * CH)), "l"(xv + c0), "r"(bytes), "r"(smem_addr(&full[slot]))
                         : "memory");
        }
      }
    }
    return;  // the copies land without it
  }
#endif
  unsigned item = 0, par = 0;  // chunks consumed so far; row parity
  for (int row = blockIdx.x; row < N; row += gridDim.x, par ^= 1u) {
    const float* x = logits + (size_t)row * V;
    const Body b(x, V, aligned);
    const float4* xv = reinterpret_cast<const float4*>(x + b.head);
    float m = -INFINITY, s = 0.0f;
    if (ringed) {
#ifndef KP_EMULATOR_HOOKS
      for (int c = 0; c < b.nch; ++c, ++item) {
        const unsigned slot = item % R;
        const int n = min(b.nvec - c * CH, CH);
        const float4* buf = ring + slot * CH;
        wait_bar(&full[slot], (item / R) & 1u);
#pragma unroll 2
        for (int k = t; k < n; k += NC) online4(m, s, buf[k]);
        __syncwarp();
        if (lane == 0) arrive(&empty[slot]);  // this warp is done with the buffer
      }
#endif
    } else {
      for (int k = t; k < b.nvec && t < NC; k += NC) online4(m, s, __ldcs(xv + k));
    }
    const int tail = b.head + b.nvec * 4;
    if (t < b.head) online1(m, s, x[t]);
    for (int j = tail + t; j < V && t < NC; j += NC) online1(m, s, x[j]);
    for (int o = 16; o > 0; o >>= 1) merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
    if (lane == 0 && warp < NW) { pm[par][warp] = m; ps[par][warp] = s; }
    consumers_sync();
    if (t == 0) {
      m = -INFINITY;
      s = 0.0f;
      for (int w = 0; w < NW; ++w) merge(m, s, pm[par][w], ps[par][w]);
      losses[row] = logf(s) + m - x[targets[row]];
    }
  }
}
