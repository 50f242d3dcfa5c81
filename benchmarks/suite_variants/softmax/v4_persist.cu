// launch: {"grid": ["min(N, 132)"], "block": [1024], "shared_bytes": "4 * C + 64"}
// Row softmax, persistent: one block of 1024 per SM (132 on the H200) walks rows gridDim.x apart,
// the whole row in shared memory (201 KB at C 50257). The row arrives as bulk copies (cp.async.bulk,
// TMA) of 32 KB chunks, one mbarrier each, and the online pass reads each chunk as it lands; the
// write pass frees the chunks in order, and as soon as chunk j is written out, one thread starts the
// copy of the next row's chunk j into it. So the next row is in flight while this one is written and
// no registers hold loads: best.cu's profile was latency-bound (half occupancy, one eligible warp per
// scheduler). Chunk j spans float4 [j*CH, (j+1)*CH) of every row's aligned body, so a row's chunk
// never overlaps another chunk of the row before it. sm_90 only; in the CPU emulator
// (KP_EMULATOR_HOOKS) thread 0 copies each chunk where it would start the bulk copy. Rows longer than the launch's shared
// memory (or unaligned pointers) take a two-pass path from DRAM.
#include <cfloat>

#define NT 1024     // threads per block
#define CH 2048     // float4 per chunk (32 KB): two per thread
#define MAXCH 16    // mbarriers: rows up to 16 chunks (512 KB, more than shared memory holds)

__device__ __forceinline__ unsigned dyn_smem_bytes() {
#ifdef KP_EMULATOR_HOOKS
  return kp_dynamic_smem_bytes();
#else
  unsigned r;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
  return r;
#endif
}

#ifdef KP_EMULATOR_HOOKS  // the copy, done by the calling thread; the waits are the block's barriers
__device__ __forceinline__ void start_chunk(unsigned long long*, float4* cache, const float4* xv, int c0, int c1) {
  for (int k = c0; k < c1; ++k) cache[k] = xv[k];
}
#else
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

// one arrival and the copy of float4 [c0, c1) of the row's body into the same place of the cache
__device__ __forceinline__ void start_chunk(unsigned long long* bar, float4* cache, const float4* xv, int c0, int c1) {
  const unsigned bytes = (unsigned)max(0, c1 - c0) * 16u;
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
  if (bytes)
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(smem_addr(cache + c0)), "l"(xv + c0), "r"(bytes), "r"(smem_addr(bar))
                 : "memory");
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

// the float4 body of row r: its first element offset (to 16 bytes) and its length in float4
__device__ __forceinline__ int head_of(const float* x) { return (int)((16 - ((size_t)x & 15)) & 15) / 4; }

__global__ void __launch_bounds__(NT, 1)
softmax_forward(float* __restrict__ out, const float* __restrict__ inp, int N, int C) {
  extern __shared__ float4 cache[];
  __shared__ float pm[NT / 32], ps[NT / 32];
  __shared__ unsigned long long bars[MAXCH];  // 8-byte aligned, as mbarriers need
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int nch = (C / 4 + CH - 1) / CH;  // chunks of every row (the last ones may be empty)
  const bool aligned = (((size_t)inp | (size_t)out) & 15) == 0;
  const bool cached = aligned && nch >= 1 && nch <= MAXCH && (unsigned)(C / 4) * 16u <= dyn_smem_bytes();
  if (cached && t == 0) {
#ifndef KP_EMULATOR_HOOKS
    for (int b = 0; b < nch; ++b) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bars[b])));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
    if ((int)blockIdx.x < N) {
      const float* x = inp + (size_t)blockIdx.x * C;
      const int head = min(C, head_of(x)), nvec = (C - head) / 4;
      const float4* xv = reinterpret_cast<const float4*>(x + head);
      for (int b = 0; b < nch; ++b) start_chunk(&bars[b], cache, xv, b * CH, min(nvec, b * CH + CH));
    }
  }
  __syncthreads();  // the barriers are set up before anyone waits on them
  unsigned parity = 0;
  for (int row = blockIdx.x; row < N; row += gridDim.x, parity ^= 1u) {
    const float* x = inp + (size_t)row * C;
    float* y = out + (size_t)row * C;
    // unaligned pointers: no body, every element from the head and tail loops
    const int head = aligned ? min(C, head_of(x)) : 0, nvec = aligned ? (C - head) / 4 : 0, tail = head + nvec * 4;
    const float4* xv = reinterpret_cast<const float4*>(x + head);
    float4* yv = reinterpret_cast<float4*>(y + head);
    float m = -INFINITY, s = 0.0f;
    if (cached) {
#ifdef KP_EMULATOR_HOOKS
      __syncthreads();  // the last chunk's copy (thread 0's) is in
#endif
      for (int b = 0; b < nch; ++b) {
#ifndef KP_EMULATOR_HOOKS
        wait_bar(&bars[b], parity);
#endif
        const int c1 = min(nvec, b * CH + CH);
#pragma unroll 2
        for (int k = b * CH + t; k < c1; k += NT) online4(m, s, cache[k]);
      }
    } else {
      for (int k = t; k < nvec; k += NT) online4(m, s, __ldcs(xv + k));
    }
    if (t < head) online1(m, s, x[t]);
    for (int j = tail + t; j < C; j += NT) online1(m, s, x[j]);
    for (int o = 16; o > 0; o >>= 1) merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
    if (lane == 0) { pm[warp] = m; ps[warp] = s; }
    __syncthreads();
    m = lane < NT / 32 ? pm[lane] : -INFINITY;
    s = lane < NT / 32 ? ps[lane] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
    const float inv = 1.0f / s;
    if (t < head) y[t] = __expf(x[t] - m) * inv;
    for (int j = tail + t; j < C; j += NT) y[j] = __expf(x[j] - m) * inv;
    if (cached) {
      const int next = row + gridDim.x;
      const float* nx = inp + (size_t)min(next, N - 1) * C;
      const int nhead = min(C, head_of(nx)), nnvec = (C - nhead) / 4;
      const float4* nxv = reinterpret_cast<const float4*>(nx + nhead);
      for (int b = 0; b < nch; ++b) {
        const int c1 = min(nvec, b * CH + CH);
#pragma unroll 2
        for (int k = b * CH + t; k < c1; k += NT) {
          const float4 v = cache[k];
          __stcs(yv + k, make_float4(__expf(v.x - m) * inv, __expf(v.y - m) * inv, __expf(v.z - m) * inv,
                                     __expf(v.w - m) * inv));
        }
        __syncthreads();  // chunk b of the cache is read: the next row may land there
        if (t == 0 && next < N) {
#ifndef KP_EMULATOR_HOOKS
          asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
          start_chunk(&bars[b], cache, nxv, b * CH, min(nnvec, b * CH + CH));
        }
      }
    } else {
      for (int k = t; k < nvec; k += NT) {
        const float4 v = xv[k];
        __stcs(yv + k, make_float4(__expf(v.x - m) * inv, __expf(v.y - m) * inv, __expf(v.z - m) * inv,
                                   __expf(v.w - m) * inv));
      }
      __syncthreads();  // pm and ps are read before the next row writes them
    }
  }
}
