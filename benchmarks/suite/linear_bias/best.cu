// out = inp weight^T + bias in strict float32, hand-written: the SIMT tile of gemm_fp32/best.cu with the
// weight given as OC x C (K contiguous, staged transposed like the input), the bias in the epilogue.
// ---- strict float32 SIMT tile (the same core in every float32 family of the suite) ----------------
// A block of 256 threads computes a 128 x 128 tile of C in BK = 8 steps. A's tile (128 rows x 8 k,
// K contiguous) is stored transposed, As[k][m], with rows padded to 132 floats (no bank conflict
// on the transposing store); B's tile is Bs[k][n], loaded as float4 rows when B is K x N (N
// contiguous), or transposed like A's when B is given as N x K (K contiguous: `B_NK`). Two shared
// buffers and a register prefetch of the next tile: one barrier per step. Thread (tx, ty) of a
// 16 x 16 grid holds rows ty*4 + {0..3} and 64 + ty*4 + {0..3}, columns tx*4 + {0..3} and 64 +
// tx*4 + {0..3}: its 4 shared loads per k are float4, conflict-free (A broadcast in a warp).
// SG_WARPTILE=1 (a build-time switch for tuning sweeps): each warp owns a 32 x 64 piece of the tile (lanes
// 4 x 8, rows lr*4 and 16 + lr*4, columns lc*4 and 32 + lc*4 of it): 4 + 8 distinct float4 per warp and k
// instead of 2 + 16, each 8-lane phase of a shared load one address or 128 contiguous bytes.
#ifndef SG_WARPTILE
#define SG_WARPTILE 0
#endif
#define SG_BM 128
#define SG_BN 128
#define SG_BK 8
#define SG_LD 132

struct SgTile {
  float4 a, b;  // this thread's share of the next A and B tiles
};

// 4 consecutive floats of a row at column c (K contiguous) with zeros past `cols` or past `rows`
__device__ __forceinline__ float4 sg_load4(const float* __restrict__ p, int row, int rows, int c, int cols, int ld,
                                           bool vec) {
  if (row >= rows) return make_float4(0.f, 0.f, 0.f, 0.f);
  const float* q = p + (size_t)row * ld + c;
  if (vec && c + 3 < cols) return *reinterpret_cast<const float4*>(q);
  float4 v;
  v.x = c < cols ? q[0] : 0.f;
  v.y = c + 1 < cols ? q[1] : 0.f;
  v.z = c + 2 < cols ? q[2] : 0.f;
  v.w = c + 3 < cols ? q[3] : 0.f;
  return v;
}

template <bool B_NK>
__device__ __forceinline__ void sg_fetch(SgTile& t, const float* __restrict__ A, const float* __restrict__ B, int M,
                                         int N, int K, int m0, int n0, int k0, bool vecA, bool vecB) {
  const int tid = threadIdx.x;
  // A: 128 rows x 8 k = 256 float4, one per thread: row tid/2, k (tid%2)*4
  t.a = sg_load4(A, m0 + tid / 2, M, k0 + (tid % 2) * 4, K, K, vecA);
  if (B_NK) {  // B given as N x K: like A
    t.b = sg_load4(B, n0 + tid / 2, N, k0 + (tid % 2) * 4, K, K, vecB);
  } else {  // B is K x N: 8 rows of 128 = 256 float4, row tid/32, column (tid%32)*4
    t.b = sg_load4(B, k0 + tid / 32, K, n0 + (tid % 32) * 4, N, N, vecB);
  }
}

template <bool B_NK>
__device__ __forceinline__ void sg_store(const SgTile& t, float (*As)[SG_LD], float (*Bs)[SG_LD]) {
  const int tid = threadIdx.x;
  const int r = tid / 2, k = (tid % 2) * 4;
  As[k + 0][r] = t.a.x;
  As[k + 1][r] = t.a.y;
  As[k + 2][r] = t.a.z;
  As[k + 3][r] = t.a.w;
  if (B_NK) {
    Bs[k + 0][r] = t.b.x;
    Bs[k + 1][r] = t.b.y;
    Bs[k + 2][r] = t.b.z;
    Bs[k + 3][r] = t.b.w;
  } else {
    *reinterpret_cast<float4*>(&Bs[tid / 32][(tid % 32) * 4]) = t.b;
  }
}

// the tile row of a thread's accumulator row i (0..7) and the first tile column of its column quadrant h (0, 1)
__device__ __forceinline__ int sg_row(int i) {
#if SG_WARPTILE
  const int w = threadIdx.x / 32, lr = threadIdx.x % 32 / 8;
  return (w / 2) * 32 + (i < 4 ? 0 : 16) + lr * 4 + (i & 3);
#else
  return (i < 4 ? 0 : 64) + (threadIdx.x / 16) * 4 + (i & 3);
#endif
}
__device__ __forceinline__ int sg_col(int h) {
#if SG_WARPTILE
  const int w = threadIdx.x / 32, lc = threadIdx.x % 8;
  return (w % 2) * 64 + (h == 0 ? 0 : 32) + lc * 4;
#else
  return (h == 0 ? 0 : 64) + (threadIdx.x % 16) * 4;
#endif
}

// acc[i][j]: tile row sg_row(i), tile column sg_col(j / 4) + j % 4
template <bool B_NK>
__device__ __forceinline__ void sg_mainloop(float (&acc)[8][8], const float* __restrict__ A,
                                            const float* __restrict__ B, int M, int N, int K, int m0, int n0) {
  __align__(16) __shared__ float As[2][SG_BK][SG_LD];
  __align__(16) __shared__ float Bs[2][SG_BK][SG_LD];
  const int ar = sg_row(0), ar2 = sg_row(4), bc = sg_col(0), bc2 = sg_col(1);
  const bool vecA = K % 4 == 0;
  const bool vecB = B_NK ? K % 4 == 0 : N % 4 == 0;
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
  const int steps = (K + SG_BK - 1) / SG_BK;
  SgTile t;
  sg_fetch<B_NK>(t, A, B, M, N, K, m0, n0, 0, vecA, vecB);
  sg_store<B_NK>(t, As[0], Bs[0]);
  __syncthreads();
  for (int s = 0; s < steps; ++s) {
    const int cur = s & 1;
    if (s + 1 < steps) sg_fetch<B_NK>(t, A, B, M, N, K, m0, n0, (s + 1) * SG_BK, vecA, vecB);
#pragma unroll
    for (int k = 0; k < SG_BK; ++k) {
      const float4 a0 = *reinterpret_cast<const float4*>(&As[cur][k][ar]);
      const float4 a1 = *reinterpret_cast<const float4*>(&As[cur][k][ar2]);
      const float4 b0 = *reinterpret_cast<const float4*>(&Bs[cur][k][bc]);
      const float4 b1 = *reinterpret_cast<const float4*>(&Bs[cur][k][bc2]);
      const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    if (s + 1 < steps) sg_store<B_NK>(t, As[cur ^ 1], Bs[cur ^ 1]);
    __syncthreads();
  }
}

// ---- end of the SIMT tile ---------------------------------------------------------------------------

__global__ void __launch_bounds__(256) linear_forward(float* __restrict__ out, const float* __restrict__ inp,
                                                      const float* __restrict__ weight, const float* __restrict__ bias,
                                                      int N, int C, int OC) {
  const int m0 = blockIdx.y * SG_BM, n0 = blockIdx.x * SG_BN;
  float acc[8][8];
  sg_mainloop<true>(acc, inp, weight, N, OC, C, m0, n0);
  const bool vec = OC % 4 == 0;
  float b[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const int c = n0 + sg_col(j / 4) + (j & 3);
    b[j] = c < OC ? bias[c] : 0.f;
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int r = m0 + sg_row(i);
    if (r >= N) continue;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int c = n0 + sg_col(h);
      float* p = out + (size_t)r * OC + c;
      if (vec && c + 3 < OC) {
        *reinterpret_cast<float4*>(p) = make_float4(acc[i][h * 4] + b[h * 4], acc[i][h * 4 + 1] + b[h * 4 + 1],
                                                    acc[i][h * 4 + 2] + b[h * 4 + 2], acc[i][h * 4 + 3] + b[h * 4 + 3]);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (c + j < OC) p[j] = acc[i][h * 4 + j] + b[h * 4 + j];
      }
    }
  }
}
