// C = A B on bf16 operands with fp32 accumulation, hand-written for the tensor cores of sm_80 and later
// (an sm_90 build: mma.sync, not Hopper's wgmma, which needs the sm_90a target the suite does not build).
// By default a block of 8 warps computes 128 x 128 of C, each warp 64 x 32 (4 x 4 mma tiles of 16 x 8), BK = 64 in
// a 3-stage cp.async pipeline (the fastest of benchmarks/matmul_sweep.py's settings on the H200 at every size);
// fragments come from shared memory through ldmatrix (B's transposed, since B is K x N with N contiguous).
// Rows of the shared tiles are padded by 16 bytes (A: BK + 8 bf16, B: BN + 8), so
// the 8 row addresses of each ldmatrix fall in 8 different bank groups. Sizes that are not multiples of 8
// take a scalar path for the tile loads; any M, N, K works.
#include <cuda_bf16.h>
#include <string.h>
// ---- tensor-core helpers: cp.async and mma.sync on the GPU; in the CPU emulator of the tests
// (KP_EMULATOR_HOOKS) plain copies and an exchange of the warp's fragments through memory that
// follows the PTX ISA's fragment layouts, so the layouts are checked there too.
#ifdef KP_EMULATOR_HOOKS
static float kp_mma_x[32][32][8];  // [warp][lane][register]: the emulator runs one block at a time
__device__ __forceinline__ int kp_lane() { return (threadIdx.x + threadIdx.y * blockDim.x) % 32; }
__device__ __forceinline__ int kp_warp() { return (threadIdx.x + threadIdx.y * blockDim.x) / 32; }
#endif

// 16 bytes global -> shared, zero-filled when !full
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, bool full) {
#ifdef KP_EMULATOR_HOOKS
  if (full)
    memcpy(smem, gmem, 16);
  else
    memset(smem, 0, 16);
#else
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(full ? 16 : 0));
#endif
}
__device__ __forceinline__ void cp_async_commit() {
#ifndef KP_EMULATOR_HOOKS
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
#ifndef KP_EMULATOR_HOOKS
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}
#ifdef KP_EMULATOR_HOOKS
static const void* kp_ldsm_x[32][32];  // [warp][lane]: the row address each lane gives ldmatrix
#endif

// ldmatrix .x4 (.trans): lane l gives the address of row l % 8 of matrix l / 8 (8 bf16, 16 bytes);
// r[q] = matrix q's elements (row l / 4, columns 2(l % 4), +1), or transposed (rows 2(l % 4), +1, column l / 4)
template <bool TRANS>
__device__ __forceinline__ void ldsm_x4(unsigned (&r)[4], const __nv_bfloat16* row) {
#ifdef KP_EMULATOR_HOOKS
  const int lane = kp_lane(), w = kp_warp();
  kp_ldsm_x[w][lane] = row;
  __syncwarp();
  for (int q = 0; q < 4; ++q) {
    unsigned short lo, hi;
    if (TRANS) {
      const unsigned short* r0 = (const unsigned short*)kp_ldsm_x[w][q * 8 + 2 * (lane % 4)];
      const unsigned short* r1 = (const unsigned short*)kp_ldsm_x[w][q * 8 + 2 * (lane % 4) + 1];
      lo = r0[lane / 4];
      hi = r1[lane / 4];
    } else {
      const unsigned short* r0 = (const unsigned short*)kp_ldsm_x[w][q * 8 + lane / 4];
      lo = r0[2 * (lane % 4)];
      hi = r0[2 * (lane % 4) + 1];
    }
    r[q] = (unsigned)lo | ((unsigned)hi << 16);
  }
  __syncwarp();
#else
  const unsigned s = (unsigned)__cvta_generic_to_shared(row);
  if (TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s));
#endif
}

#ifdef KP_EMULATOR_HOOKS
inline float kp_bf(unsigned v, int half) {
  const unsigned u = (half ? v >> 16 : v & 0xffffu) << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
#endif

// D += A (16 x 16, row) B (16 x 8, col), bf16 operands, fp32 accumulation. Lane l, g = l / 4, t = l % 4:
// a = {A[g][2t..], A[g+8][2t..], A[g][2t+8..], A[g+8][2t+8..]} (2 bf16 each), b = {B[2t..][g], B[2t+8..][g]},
// d = {D[g][2t], D[g][2t+1], D[g+8][2t], D[g+8][2t+1]}.
__device__ __forceinline__ void mma_bf16(float (&d)[4], const unsigned (&a)[4], const unsigned* b) {
#ifdef KP_EMULATOR_HOOKS
  const int lane = kp_lane(), w = kp_warp(), g = lane / 4, t = lane % 4;
  for (int i = 0; i < 4; ++i) memcpy(&kp_mma_x[w][lane][i], &a[i], 4);
  for (int i = 0; i < 2; ++i) memcpy(&kp_mma_x[w][lane][4 + i], &b[i], 4);
  __syncwarp();
  for (int e = 0; e < 4; ++e) {
    const int r = g + (e >= 2 ? 8 : 0), n = 2 * t + (e & 1);
    float s = 0.f;
    for (int k = 0; k < 16; ++k) {
      unsigned av, bv;
      memcpy(&av, &kp_mma_x[w][(r % 8) * 4 + (k % 8) / 2][(r >= 8) + 2 * (k >= 8)], 4);
      memcpy(&bv, &kp_mma_x[w][n * 4 + (k % 8) / 2][4 + (k >= 8)], 4);
      s += kp_bf(av, k % 2) * kp_bf(bv, k % 2);
    }
    d[e] += s;
  }
  __syncwarp();
#else
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

// The tile's shape, overridable at build time (-D) for tuning sweeps (benchmarks/matmul_sweep.py's variants):
// BG_NI n8 tiles per warp (8: a warp 64 x 64, the block 128 x 256; 4: 64 x 32 and 128 x 128), BG_BK the
// k depth of a stage (a multiple of 16), BG_STAGES the pipeline's stages. The launch must match:
// grid (cdiv(N, BG_BN), cdiv(M, 128)), BG_STAGES * (128 * (BG_BK + 8) + BG_BK * (BG_BN + 8)) * 2 bytes.
#ifndef BG_NI
#define BG_NI 4
#endif
#ifndef BG_BK
#define BG_BK 64
#endif
#ifndef BG_STAGES
#define BG_STAGES 3
#endif
#define BG_BM 128
#define BG_BN (4 * 8 * BG_NI)
#define BG_LDA (BG_BK + 8)
#define BG_LDB (BG_BN + 8)
#define BG_A_ELEMS (BG_BM * BG_LDA)
#define BG_STAGE_ELEMS (BG_BM * BG_LDA + BG_BK * BG_LDB)

typedef __nv_bfloat16 bf16_t;

__device__ __forceinline__ void bg_load_stage(bf16_t* st, const bf16_t* __restrict__ A, const bf16_t* __restrict__ B,
                                              int M, int N, int K, int m0, int n0, int k0, bool vec) {
  bf16_t* As = st;
  bf16_t* Bs = st + BG_A_ELEMS;
  const int tid = threadIdx.x;
  constexpr int ACH = BG_BK / 8, BCH = BG_BN / 8;  // 16-byte chunks per row of A's and B's tiles
#pragma unroll
  for (int i = 0; i < BG_BM * ACH / 256; ++i) {  // A: 128 rows x ACH chunks of 8
    const int c = tid + i * 256, r = c / ACH, k = (c % ACH) * 8;
    bf16_t* dst = As + r * BG_LDA + k;
    const int gr = m0 + r, gk = k0 + k;
    if (vec) {
      const bool full = gr < M && gk < K;
      cp_async16(dst, full ? A + (size_t)gr * K + gk : A, full);
    } else {
      for (int e = 0; e < 8; ++e) dst[e] = (gr < M && gk + e < K) ? A[(size_t)gr * K + gk + e] : __float2bfloat16(0.f);
    }
  }
#pragma unroll
  for (int i = 0; i < BG_BK * BCH / 256; ++i) {  // B: BK rows x BCH chunks of 8
    const int c = tid + i * 256, k = c / BCH, n = (c % BCH) * 8;
    bf16_t* dst = Bs + k * BG_LDB + n;
    const int gk = k0 + k, gn = n0 + n;
    if (vec) {
      const bool full = gk < K && gn < N;
      cp_async16(dst, full ? B + (size_t)gk * N + gn : B, full);
    } else {
      for (int e = 0; e < 8; ++e) dst[e] = (gk < K && gn + e < N) ? B[(size_t)gk * N + gn + e] : __float2bfloat16(0.f);
    }
  }
}

__global__ void __launch_bounds__(256) gemm_bf16(bf16_t* __restrict__ C, const bf16_t* __restrict__ A,
                                                 const bf16_t* __restrict__ B, int M, int N, int K) {
  extern __shared__ float4 smem4[];
  bf16_t* smem = reinterpret_cast<bf16_t*>(smem4);
  const int m0 = blockIdx.y * BG_BM, n0 = blockIdx.x * BG_BN;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = warp / 4, wn = warp % 4;
  const bool vec = K % 8 == 0 && N % 8 == 0;
  float acc[4][BG_NI][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < BG_NI; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;
  const int steps = (K + BG_BK - 1) / BG_BK;
#pragma unroll
  for (int s = 0; s < BG_STAGES - 1; ++s) {
    if (s < steps) bg_load_stage(smem + s * BG_STAGE_ELEMS, A, B, M, N, K, m0, n0, s * BG_BK, vec);
    cp_async_commit();
  }
  for (int s = 0; s < steps; ++s) {
    cp_async_wait<BG_STAGES - 2>();
    __syncthreads();
    const int next = s + BG_STAGES - 1;  // into the stage read at step s - 1: every warp is past it
    if (next < steps) bg_load_stage(smem + (next % BG_STAGES) * BG_STAGE_ELEMS, A, B, M, N, K, m0, n0, next * BG_BK, vec);
    cp_async_commit();
    const bf16_t* As = smem + (s % BG_STAGES) * BG_STAGE_ELEMS;
    const bf16_t* Bs = As + BG_A_ELEMS;
#pragma unroll
    for (int kk = 0; kk < BG_BK; kk += 16) {
      unsigned af[4][4], bfr[BG_NI / 2][4];
#pragma unroll
      for (int mi = 0; mi < 4; ++mi)
        ldsm_x4<false>(af[mi], As + (wm * 64 + mi * 16 + lane % 16) * BG_LDA + kk + (lane / 16) * 8);
#pragma unroll
      for (int nj = 0; nj < BG_NI / 2; ++nj)  // n tiles 2nj and 2nj+1: {b0, b1} of each
        ldsm_x4<true>(bfr[nj], Bs + (kk + lane % 8 + 8 * ((lane / 8) % 2)) * BG_LDB + wn * 8 * BG_NI + nj * 16 + 8 * (lane / 16));
#pragma unroll
      for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int ni = 0; ni < BG_NI; ++ni) mma_bf16(acc[mi][ni], af[mi], &bfr[ni / 2][(ni % 2) * 2]);
    }
  }
  cp_async_wait<0>();
  const bool vec2 = N % 2 == 0;
  const int g = lane / 4, t = lane % 4;
#pragma unroll
  for (int mi = 0; mi < 4; ++mi)
#pragma unroll
    for (int ni = 0; ni < BG_NI; ++ni)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = m0 + wm * 64 + mi * 16 + g + h * 8, c = n0 + wn * 8 * BG_NI + ni * 8 + 2 * t;
        if (r >= M) continue;
        bf16_t* p = C + (size_t)r * N + c;
        if (vec2 && c + 1 < N) {
          *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(acc[mi][ni][2 * h], acc[mi][ni][2 * h + 1]);
        } else {
          if (c < N) p[0] = __float2bfloat16(acc[mi][ni][2 * h]);
          if (c + 1 < N) p[1] = __float2bfloat16(acc[mi][ni][2 * h + 1]);
        }
      }
}
