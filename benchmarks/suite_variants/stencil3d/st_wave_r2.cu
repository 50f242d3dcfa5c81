// launch: {"grid": ["cdiv(W, 128)", "cdiv(max(H - 2, 1), 32)", "max(1, min(max(D - 2, 1), 264 // (cdiv(W, 128) * cdiv(max(H - 2, 1), 32))))"], "block": [32, 16], "shared_bytes": "6 * 34 * 136 * 4"}
// 7-point 3-D stencil, st_wave (best.cu's ring of plane tiles, one wave of z-strips) with two
// adjacent output rows per thread: a block of 16 warps covers a 128 x 32 tile, so a plane's tile reads
// 34 rows for 32 (best.cu: 18 for 16, the y halo 6% instead of 12.5% more rows through L2 and shared
// memory), and a thread's two rows are each other's y neighbours (4 shared loads per output row
// instead of 5). A stage is 34 x 136 floats (18496 bytes), the ring 6 stages (110976 bytes), 2 blocks
// of 512 per SM (__launch_bounds__(512, 2)): 2 x 3 planes x 17 KB of copies in flight per SM (best.cu:
// 3 x 3 x 9 KB). The grid's z-strips make x-tiles x y-tiles x strips at most 132 SMs x 2 blocks: at
// 512^3 4 x 16 tiles x 4 strips of 128 planes = 256 blocks, one wave; at 129 x 127 x 131 2 x 4 tiles x
// 33 strips of 4 planes (32 of them with work).
// The copies are cp.async (16 bytes where W is a multiple of 4, else 4 bytes), the CPU emulator
// (KP_EMULATOR_HOOKS) does them as plain copies. Interior points only; out's boundary is not written.
#define TX 32                         // lanes: 128 columns
#define NW 16                         // warps
#define RPT 2                         // output rows per thread (adjacent)
#define TY (NW * RPT)                 // rows of the tile: 32
#define P 3                           // planes in flight beyond the three being read
#define S (P + 3)                     // stages of the ring
#define RW 136                        // floats per tile row: left halo at 3, columns at 4..131, right halo at 132
#define STAGE ((TY + 2) * RW)         // floats per stage: TY rows and the two halo rows
// dynamic shared memory: S * STAGE * 4 = 110976 bytes

__device__ __forceinline__ void st3_cp16(float* smem, const float* gmem, bool full) {
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
__device__ __forceinline__ void st3_cp4(float* smem, const float* gmem, bool full) {
#ifdef KP_EMULATOR_HOOKS
  *smem = full ? *gmem : 0.f;
#else
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(gmem), "r"(full ? 4 : 0));
#endif
}
__device__ __forceinline__ void st3_commit() {
#ifndef KP_EMULATOR_HOOKS
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}
template <int N>
__device__ __forceinline__ void st3_wait() {
#ifndef KP_EMULATOR_HOOKS
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}

// one tile row t (0 = the halo row above, TY + 1 the one below) of plane p into a stage, 128 columns
// by the warp's lanes (zeros outside the grid, never stored)
__device__ __forceinline__ void st3_row(float* stage, const float* plane, const float* __restrict__ inp, int t,
                                        int y0, int j0, int H, int W, bool vec) {
  const int y = y0 - 1 + t;
  float* s = stage + t * RW + 4 + 4 * threadIdx.x;
  const float* g = plane + (size_t)min(y, H - 1) * W;
  if (vec) {
    const bool ok = y < H && j0 < W;
    st3_cp16(s, ok ? g + j0 : inp, ok);
  } else {
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const bool ok = y < H && j0 + k < W;
      st3_cp4(s + k, ok ? g + j0 + k : inp, ok);
    }
  }
}

// plane p's tile into a stage: this thread's RPT rows (tile rows RPT * ty + 1 ..), the first warp the
// halo row above, the last the one below; the edge lanes the halo columns of their own rows
__device__ __forceinline__ void st3_issue(float* stage, const float* __restrict__ inp, int p, int x0, int y0, int H,
                                          int W, bool vec) {
  const int lane = threadIdx.x, ty = threadIdx.y;
  const float* plane = inp + (size_t)p * H * W;
  const int j0 = x0 + 4 * lane;
#pragma unroll
  for (int r = 0; r < RPT; ++r) st3_row(stage, plane, inp, RPT * ty + 1 + r, y0, j0, H, W, vec);
  if (ty == 0) st3_row(stage, plane, inp, 0, y0, j0, H, W, vec);
  if (ty == NW - 1) st3_row(stage, plane, inp, TY + 1, y0, j0, H, W, vec);
  if (lane == 0 || lane == TX - 1) {
    const int x = lane == 0 ? x0 - 1 : x0 + 4 * TX;
#pragma unroll
    for (int r = 0; r < RPT; ++r) {
      const int y = y0 + RPT * ty + r;
      const bool ok = y < H && x >= 0 && x < W;
      st3_cp4(stage + (RPT * ty + 1 + r) * RW + (lane == 0 ? 3 : 4 + 4 * TX), ok ? plane + (size_t)y * W + x : inp,
              ok);
    }
  }
}

__device__ __forceinline__ float4 st3_ld4(const float* s) { return *reinterpret_cast<const float4*>(s); }

__global__ void __launch_bounds__(TX * NW, 2) stencil3d(float* __restrict__ out, const float* __restrict__ inp, int D,
                                                        int H, int W) {
  extern __shared__ float4 st3_ring[];
  float* ring = reinterpret_cast<float*>(st3_ring);
  const int lane = threadIdx.x, ty = threadIdx.y;
  const int x0 = blockIdx.x * TX * 4;
  const int y0 = 1 + blockIdx.y * TY;  // the tile's first output row
  const int ZB = (max(D - 2, 1) + (int)gridDim.z - 1) / (int)gridDim.z;  // output planes per block
  const int z0 = 1 + (int)blockIdx.z * ZB;  // the strip's first output plane
  const int z1 = min(D - 1, z0 + ZB);       // one past its last
  if (z0 >= z1 || y0 > H - 2) return;       // (uniform over the block)
  const bool vec = (W & 3) == 0;
  const int j0 = x0 + 4 * lane;
  const int ya = y0 + RPT * ty;  // this thread's first output row
  const int col = 4 + 4 * lane;  // its first column in a tile row

  // planes z0 - 1 .. z0 + P, a group each (an empty group past the strip keeps the count)
  for (int k = 0; k < P + 2; ++k) {
    const int p = z0 - 1 + k;
    if (p <= z1) st3_issue(ring + (p % S) * STAGE, inp, p, x0, y0, H, W, vec);
    st3_commit();
  }
  for (int z = z0; z < z1; ++z) {
    st3_wait<P - 1>();  // planes up to z + 1 have landed (this thread's copies) ...
    __syncthreads();    // ... everyone's; and everyone is done with step z - 1 (plane z - 2's stage is free)
    const int pn = z + P + 1;
    if (pn <= z1) st3_issue(ring + (pn % S) * STAGE, inp, pn, x0, y0, H, W, vec);
    st3_commit();

    const float* sa = ring + ((z - 1) % S) * STAGE + (RPT * ty + 1) * RW;
    const float* sb = ring + (z % S) * STAGE + (RPT * ty + 1) * RW;
    const float* sc = ring + ((z + 1) % S) * STAGE + (RPT * ty + 1) * RW;
    float4 cur[RPT + 2];  // rows ya - 1 .. ya + RPT of plane z
#pragma unroll
    for (int r = 0; r < RPT + 2; ++r) cur[r] = st3_ld4(sb + (r - 1) * RW + col);
#pragma unroll
    for (int r = 0; r < RPT; ++r) {
      const float4 c = cur[r + 1], ym = cur[r], yp = cur[r + 2];
      const float4 zm = st3_ld4(sa + r * RW + col);
      const float4 zp = st3_ld4(sc + r * RW + col);
      float left = __shfl_up_sync(0xffffffffu, c.w, 1);
      float right = __shfl_down_sync(0xffffffffu, c.x, 1);
      if (lane == 0) left = sb[r * RW + 3];
      if (lane == TX - 1) right = sb[r * RW + 4 + 4 * TX];
      const int y = ya + r;
      if (y <= H - 2) {
        float4 o;
        o.x = 0.4f * c.x + 0.1f * (left + c.y + ym.x + yp.x + zm.x + zp.x);
        o.y = 0.4f * c.y + 0.1f * (c.x + c.z + ym.y + yp.y + zm.y + zp.y);
        o.z = 0.4f * c.z + 0.1f * (c.y + c.w + ym.z + yp.z + zm.z + zp.z);
        o.w = 0.4f * c.w + 0.1f * (c.z + right + ym.w + yp.w + zm.w + zp.w);
        float* orow = out + ((size_t)z * H + y) * W;
        if (vec && j0 >= 4 && j0 + 4 < W) {  // all four columns interior
          *reinterpret_cast<float4*>(orow + j0) = o;
        } else {
          if (j0 >= 1 && j0 <= W - 2) orow[j0] = o.x;
          if (j0 + 1 <= W - 2) orow[j0 + 1] = o.y;
          if (j0 + 2 <= W - 2) orow[j0 + 2] = o.z;
          if (j0 + 3 <= W - 2) orow[j0 + 3] = o.w;
        }
      }
    }
  }
  st3_wait<0>();  // (only empty groups are left: every plane copied was read)
}
