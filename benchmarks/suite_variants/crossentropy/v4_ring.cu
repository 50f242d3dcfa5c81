// launch: {"grid": ["min(N, 132)"], "block": [512], "shared_bytes": "131072"}
// Cross-entropy, persistent with a ring of bulk copies: one block of 512 per SM (132 on the H200)
// walks rows gridDim.x apart; each row's 16-byte-aligned body is a sequence of 16 KB chunks, and
// the block's chunks, row after row, stream through a ring of 8 chunk buffers in shared memory
// (cp.async.bulk, TMA, one mbarrier each): the ring is refilled with the chunk 8 ahead as soon as a
// chunk is read, across row ends too, so 128 KB per SM is always in flight with no registers held
// for it (best.cu keeps 4 float4 in flight per thread and a second wave at the large size). The
// online max and rescaled sum are best.cu's. sm_90 only; in the CPU emulator (KP_EMULATOR_HOOKS)
// thread 0 copies each chunk where it would start the bulk copy, so the ring's order is checked there
// too. Unaligned logits, or a launch with too little shared memory, take a path from DRAM.
#include <cfloat>

#define NT 512  // threads per block
#define CH 1024 // float4 per chunk (16 KB): two per thread
#define R 8     // chunks in the ring

__device__ __forceinline__ unsigned dyn_smem_bytes() {
#ifdef KP_EMULATOR_HOOKS
  return kp_dynamic_smem_bytes();
#else
  unsigned r;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
  return r;
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
    nch = max(1, (nvec + CH - 1) / CH);  // at least one (maybe empty) chunk, so every row takes a slot
  }
};

// the block's chunks in order, row after row: the producer side of the ring (thread 0)
struct Feed {
  int row, ch;
  __device__ void start(unsigned long long* bar, float4* slot, const float* logits, int N, int V, bool aligned) {
    if (row >= N) return;
    const float* x = logits + (size_t)row * V;
    const Body b(x, V, aligned);
    const int c0 = ch * CH, c1 = min(b.nvec, c0 + CH);
#ifdef KP_EMULATOR_HOOKS  // the copy, done by this thread; the barriers' waits are the block's barriers
    (void)bar;
    for (int k = c0; k < c1; ++k) slot[k - c0] = reinterpret_cast<const float4*>(x + b.head)[k];
#else
    const unsigned bytes = (unsigned)max(0, c1 - c0) * 16u;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
    if (bytes)
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                   ::"r"(smem_addr(slot)), "l"(reinterpret_cast<const float4*>(x + b.head) + c0), "r"(bytes),
                   "r"(smem_addr(bar))
                   : "memory");
#endif
    if (++ch >= b.nch) { ch = 0; row += gridDim.x; }
  }
};

__global__ void __launch_bounds__(NT, 1) crossentropy_forward(float* __restrict__ losses,
                                                                const float* __restrict__ logits,
                                                                const int* __restrict__ targets, int N, int V) {
  extern __shared__ float4 ring[];
  __shared__ float pm[NT / 32], ps[NT / 32];
  __shared__ unsigned long long bars[R];  // 8-byte aligned, as mbarriers need
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const bool aligned = ((size_t)logits & 15) == 0;
  const bool ringed = aligned && (unsigned)R * CH * 16u <= dyn_smem_bytes();
  Feed feed{(int)blockIdx.x, 0};
  if (ringed && t == 0) {
#ifndef KP_EMULATOR_HOOKS
    for (int b = 0; b < R; ++b) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bars[b])));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
    for (int b = 0; b < R; ++b) feed.start(&bars[b], ring + b * CH, logits, N, V, aligned);
  }
  __syncthreads();  // the barriers are set up before anyone waits on them
  unsigned item = 0;  // chunks consumed so far
  for (int row = blockIdx.x; row < N; row += gridDim.x) {
    const float* x = logits + (size_t)row * V;
    const Body b(x, V, aligned);
    const float4* xv = reinterpret_cast<const float4*>(x + b.head);
    float m = -INFINITY, s = 0.0f;
    if (ringed) {
      for (int c = 0; c < b.nch; ++c, ++item) {
        const int slot = item % R, c0 = c * CH, n = min(b.nvec - c0, CH);
        const float4* buf = ring + slot * CH;
#ifndef KP_EMULATOR_HOOKS
        wait_bar(&bars[slot], (item / R) & 1u);
#endif
#pragma unroll 2
        for (int k = t; k < n; k += NT) online4(m, s, buf[k]);
        __syncthreads();  // the slot is read: refill it with the chunk R ahead
#ifndef KP_EMULATOR_HOOKS
        if (t == 0) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
        if (t == 0) feed.start(&bars[slot], ring + slot * CH, logits, N, V, aligned);
      }
    } else {
      for (int k = t; k < b.nvec; k += NT) online4(m, s, __ldcs(xv + k));
      __syncthreads();  // pm and ps of the row before are read
    }
    const int tail = b.head + b.nvec * 4;
    if (t < b.head) online1(m, s, x[t]);
    for (int j = tail + t; j < V; j += NT) online1(m, s, x[j]);
    for (int o = 16; o > 0; o >>= 1) merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
    if (lane == 0) { pm[warp] = m; ps[warp] = s; }
    __syncthreads();
    if (warp == 0) {
      m = lane < NT / 32 ? pm[lane] : -INFINITY;
      s = lane < NT / 32 ? ps[lane] : 0.0f;
      for (int o = 16; o > 0; o >>= 1) merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
      if (lane == 0) losses[row] = logf(s) + m - x[targets[row]];
    }
  }
}
