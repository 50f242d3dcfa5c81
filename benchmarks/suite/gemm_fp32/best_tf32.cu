// C = alpha A B + beta C with fp32 operands rounded to TF32 on the tensor cores (fp32 accumulation):
// for a tolerance that admits TF32 at this K (this file's spec says so), never for strict fp32.
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
__device__ __forceinline__ unsigned to_tf32(float x) {
#ifdef KP_EMULATOR_HOOKS
  unsigned u;
  memcpy(&u, &x, 4);
  if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u;  // round to nearest, ties away
  return u;
#else
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
#endif
}

// D += A (16 x 8, row) B (8 x 8, col), TF32 operands, fp32 accumulation. Lane l, g = l / 4, t = l % 4:
// a = {A[g][t], A[g+8][t], A[g][t+4], A[g+8][t+4]}, b = {B[t][g], B[t+4][g]},
// d = {D[g][2t], D[g][2t+1], D[g+8][2t], D[g+8][2t+1]}.
__device__ __forceinline__ void mma_tf32(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
#ifdef KP_EMULATOR_HOOKS
  const int lane = kp_lane(), w = kp_warp(), g = lane / 4, t = lane % 4;
  for (int i = 0; i < 4; ++i) memcpy(&kp_mma_x[w][lane][i], &a[i], 4);
  for (int i = 0; i < 2; ++i) memcpy(&kp_mma_x[w][lane][4 + i], &b[i], 4);
  __syncwarp();
  for (int e = 0; e < 4; ++e) {
    const int r = g + (e >= 2 ? 8 : 0), n = 2 * t + (e & 1);
    float s = 0.f;
    for (int k = 0; k < 8; ++k) {
      const float av = kp_mma_x[w][(r % 8) * 4 + k % 4][(r >= 8) + 2 * (k >= 4)];
      const float bv = kp_mma_x[w][n * 4 + k % 4][4 + (k >= 4)];
      s += av * bv;
    }
    d[e] += s;
  }
  __syncwarp();
#else
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

// ---- the TF32 tile: a block of 8 warps (2 x 4) computes 128 x 128 of C, each warp 64 x 32
// (4 x 4 mma tiles of 16 x 8), BK = 32 in a 3-stage cp.async pipeline (dynamic shared memory).
// A's tile As[m][k] (K contiguous, rows padded to 36 floats: fragment loads conflict-free);
// B's tile Bs[k][n] (rows padded to 136) when B is K x N, or Bs[n][k] like A's when B is N x K.
#define TC_BM 128
#ifndef TC_NI  // n8 tiles per warp: 4 (a warp 64 x 32, the block 128 x 128) or 8 (64 x 64, 128 x 256)
#define TC_NI 4
#endif
#define TC_BN (4 * 8 * TC_NI)
#define TC_BK 32
#ifndef TC_STAGES  // overridable at build time (-D) for tuning sweeps; shared_bytes must match
#define TC_STAGES 3
#endif
#define TC_LDA 36
#define TC_LDB_KN (TC_BN + 8)

template <bool B_NK>
struct TcSmem {
  static constexpr int a_floats = TC_BM * TC_LDA;
  static constexpr int b_floats = B_NK ? TC_BN * TC_LDA : TC_BK * TC_LDB_KN;
  static constexpr int stage_floats = a_floats + b_floats;
};

template <bool B_NK>
__device__ __forceinline__ void tc_load_stage(float* st, const float* __restrict__ A, const float* __restrict__ B,
                                              int M, int N, int K, int m0, int n0, int k0, bool vec) {
  float* As = st;
  float* Bs = st + TcSmem<B_NK>::a_floats;
  const int tid = threadIdx.x;
#pragma unroll
  for (int i = 0; i < 4; ++i) {  // A: 128 rows x 8 chunks of 4 floats
    const int c = tid + i * 256, r = c / 8, k = (c % 8) * 4;
    float* dst = As + r * TC_LDA + k;
    const int gr = m0 + r, gk = k0 + k;
    if (vec) {
      const bool full = gr < M && gk < K;
      cp_async16(dst, full ? A + (size_t)gr * K + gk : A, full);
    } else {
      for (int e = 0; e < 4; ++e) dst[e] = (gr < M && gk + e < K) ? A[(size_t)gr * K + gk + e] : 0.f;
    }
  }
#pragma unroll
  for (int i = 0; i < TC_BN * 8 / 256; ++i) {
    const int c = tid + i * 256;
    if (B_NK) {  // B is N x K: like A
      const int r = c / 8, k = (c % 8) * 4;
      float* dst = Bs + r * TC_LDA + k;
      const int gn = n0 + r, gk = k0 + k;
      if (vec) {
        const bool full = gn < N && gk < K;
        cp_async16(dst, full ? B + (size_t)gn * K + gk : B, full);
      } else {
        for (int e = 0; e < 4; ++e) dst[e] = (gn < N && gk + e < K) ? B[(size_t)gn * K + gk + e] : 0.f;
      }
    } else {  // B is K x N: 32 rows x 32 chunks
      const int k = c / (TC_BN / 4), n = (c % (TC_BN / 4)) * 4;
      float* dst = Bs + k * TC_LDB_KN + n;
      const int gk = k0 + k, gn = n0 + n;
      if (vec) {
        const bool full = gk < K && gn < N;
        cp_async16(dst, full ? B + (size_t)gk * N + gn : B, full);
      } else {
        for (int e = 0; e < 4; ++e) dst[e] = (gk < K && gn + e < N) ? B[(size_t)gk * N + gn + e] : 0.f;
      }
    }
  }
}

// acc[mi][ni][e]: row wm*64 + mi*16 + g + (e >= 2 ? 8 : 0), column wn*32 + ni*8 + 2t + (e & 1)
template <bool B_NK>
__device__ __forceinline__ void tc_mainloop(float (&acc)[4][TC_NI][4], float* smem, const float* __restrict__ A,
                                            const float* __restrict__ B, int M, int N, int K, int m0, int n0) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int wm = warp / 4, wn = warp % 4;
  const bool vec = K % 4 == 0 && (B_NK || N % 4 == 0);
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < TC_NI; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;
  const int steps = (K + TC_BK - 1) / TC_BK;
  constexpr int SF = TcSmem<B_NK>::stage_floats;
#pragma unroll
  for (int s = 0; s < TC_STAGES - 1; ++s) {
    if (s < steps) tc_load_stage<B_NK>(smem + s * SF, A, B, M, N, K, m0, n0, s * TC_BK, vec);
    cp_async_commit();
  }
  for (int s = 0; s < steps; ++s) {
    cp_async_wait<TC_STAGES - 2>();
    __syncthreads();
    const int next = s + TC_STAGES - 1;  // into the stage read at step s - 1: every warp is past it
    if (next < steps) tc_load_stage<B_NK>(smem + (next % TC_STAGES) * SF, A, B, M, N, K, m0, n0, next * TC_BK, vec);
    cp_async_commit();
    const float* As = smem + (s % TC_STAGES) * SF;
    const float* Bs = As + TcSmem<B_NK>::a_floats;
#pragma unroll
    for (int kk = 0; kk < TC_BK; kk += 8) {
      unsigned af[4][4], bf[TC_NI][2];
#pragma unroll
      for (int mi = 0; mi < 4; ++mi) {
        const float* p = As + (wm * 64 + mi * 16 + g) * TC_LDA + kk + t;
        af[mi][0] = to_tf32(p[0]);
        af[mi][1] = to_tf32(p[8 * TC_LDA]);
        af[mi][2] = to_tf32(p[4]);
        af[mi][3] = to_tf32(p[8 * TC_LDA + 4]);
      }
#pragma unroll
      for (int ni = 0; ni < TC_NI; ++ni) {
        const int n = wn * 8 * TC_NI + ni * 8 + g;
        if (B_NK) {
          bf[ni][0] = to_tf32(Bs[n * TC_LDA + kk + t]);
          bf[ni][1] = to_tf32(Bs[n * TC_LDA + kk + t + 4]);
        } else {
          bf[ni][0] = to_tf32(Bs[(kk + t) * TC_LDB_KN + n]);
          bf[ni][1] = to_tf32(Bs[(kk + t + 4) * TC_LDB_KN + n]);
        }
      }
#pragma unroll
      for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int ni = 0; ni < TC_NI; ++ni) mma_tf32(acc[mi][ni], af[mi], bf[ni]);
    }
  }
  cp_async_wait<0>();
}

__device__ __forceinline__ int tc_row(int mi, int e) {
  return (threadIdx.x / 32 / 4) * 64 + mi * 16 + (threadIdx.x % 32) / 4 + (e >= 2 ? 8 : 0);
}
__device__ __forceinline__ int tc_col(int ni) { return (threadIdx.x / 32 % 4) * (8 * TC_NI) + ni * 8 + 2 * (threadIdx.x % 4); }
// ---- end of the TF32 tile -------------------------------------------------------------------------

__global__ void __launch_bounds__(256) sgemm(float* __restrict__ C, const float* __restrict__ A,
                                             const float* __restrict__ B, int M, int N, int K, float alpha,
                                             float beta) {
  extern __shared__ float4 smem4[];
  float* smem = reinterpret_cast<float*>(smem4);
  const int m0 = blockIdx.y * TC_BM, n0 = blockIdx.x * TC_BN;
  float acc[4][TC_NI][4];
  tc_mainloop<false>(acc, smem, A, B, M, N, K, m0, n0);
  const bool vec2 = N % 2 == 0;
#pragma unroll
  for (int mi = 0; mi < 4; ++mi)
#pragma unroll
    for (int ni = 0; ni < TC_NI; ++ni)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = m0 + tc_row(mi, 2 * h), c = n0 + tc_col(ni);
        if (r >= M) continue;
        float* p = C + (size_t)r * N + c;
        if (vec2 && c + 1 < N) {
          const float2 old = *reinterpret_cast<const float2*>(p);
          *reinterpret_cast<float2*>(p) =
              make_float2(alpha * acc[mi][ni][2 * h] + beta * old.x, alpha * acc[mi][ni][2 * h + 1] + beta * old.y);
        } else {
          if (c < N) p[0] = alpha * acc[mi][ni][2 * h] + beta * p[0];
          if (c + 1 < N) p[1] = alpha * acc[mi][ni][2 * h + 1] + beta * p[1];
        }
      }
}
