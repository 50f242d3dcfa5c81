// 7-point 3-D stencil, a register march along z (one wave of z-strips, as st_wave): a block is a
// 128 x 16 tile of the (x, y) plane (32 lanes x float4 by 16 warps) and each thread keeps its own
// column's planes in a rotating set of N = K + 3 float4 registers: z - 1, z, z + 1 being read and the
// next K = 5 planes' loads (plain 16-byte loads, issued K + 1 planes ahead of their use) in flight, so
// the z neighbours never pass through shared memory and a thread has 80 bytes of loads outstanding.
// Shared memory holds, per plane, the tile (each thread stores its own row of plane z there at step z)
// and its halo rows and columns, which the first and last warps and the edge lanes copy with cp.async
// when the plane's own loads are issued, in a ring of N stages (N x 18 x 136 floats, 78336 bytes):
// one barrier per plane, then the y neighbours from the tile, the x neighbours by shuffles and the
// halo columns. The loop is unrolled N times so that the register of each plane is fixed (no moves
// of registers whose loads are still in flight). 2 blocks of 512 per SM (__launch_bounds__(512, 2)):
// at 512^3 4 x 32 tiles x 2 strips of 255 planes = 256 blocks, one wave. Interior points only; out's
// boundary is not written. The CPU emulator (KP_EMULATOR_HOOKS) does the copies as plain copies.
#define TX 32                         // lanes: 128 columns
#define TY 16                         // warps: rows of the tile
#define K 5                           // planes of loads in flight beyond the three being read
#define N (K + 3)                     // registers per column, and stages of the shared ring
#define RW 136                        // floats per tile row: left halo at 3, columns at 4..131, right halo at 132
#define STAGE ((TY + 2) * RW)         // floats per stage: TY rows and the two halo rows
// dynamic shared memory: N * STAGE * 4 = 78336 bytes

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
template <int M>
__device__ __forceinline__ void st3_wait() {
#ifndef KP_EMULATOR_HOOKS
  asm volatile("cp.async.wait_group %0;\n" ::"n"(M));
#endif
}

// this thread's own row of plane p (columns j0 .. j0 + 3 of row y); zeros outside the grid (never stored)
__device__ __forceinline__ float4 st3_own(const float* __restrict__ inp, int p, int y, int j0, int H, int W, bool vec) {
  const float* g = inp + ((size_t)p * H + y) * W + j0;
  float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
  if (y < H) {
    if (vec) {
      if (j0 < W) v = *reinterpret_cast<const float4*>(g);
    } else {
      if (j0 < W) v.x = g[0];
      if (j0 + 1 < W) v.y = g[1];
      if (j0 + 2 < W) v.z = g[2];
      if (j0 + 3 < W) v.w = g[3];
    }
  }
  return v;
}

// plane p's halo into a stage: the first warp the row above the tile, the last the row below, the edge
// lanes the halo columns of their own row (zeros outside the grid)
__device__ __forceinline__ void st3_halo(float* stage, const float* __restrict__ inp, int p, int x0, int y0, int H,
                                         int W, bool vec) {
  const int lane = threadIdx.x, ty = threadIdx.y;
  const float* plane = inp + (size_t)p * H * W;
  if (ty == 0 || ty == TY - 1) {
    const int t = ty == 0 ? 0 : TY + 1;
    const int y = y0 - 1 + t;
    const int j0 = x0 + 4 * lane;
    float* s = stage + t * RW + 4 + 4 * lane;
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
  if (lane == 0 || lane == TX - 1) {
    const int y = y0 + ty;
    const int x = lane == 0 ? x0 - 1 : x0 + 4 * TX;
    const bool ok = y < H && x >= 0 && x < W;
    st3_cp4(stage + (ty + 1) * RW + (lane == 0 ? 3 : 4 + 4 * TX), ok ? plane + (size_t)y * W + x : inp, ok);
  }
}

__global__ void __launch_bounds__(TX * TY, 2) stencil3d(float* __restrict__ out, const float* __restrict__ inp, int D,
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
  const int y = y0 + ty;
  const int col = 4 + 4 * lane;  // this thread's first column in a tile row
  const int yl = min(y, H - 1);  // the row its loads read (rows past the grid: loaded, never stored)

  // plane p lives in register r[(p - z0 + 1) % N] and stage (p - z0 + 1) % N. Planes z0 - 1 .. z0 + K + 1
  // (N of them, every slot), a cp.async group each for the halos; planes past the strip are not read.
  float4 r[N];
#pragma unroll
  for (int k = 0; k < N; ++k) {
    const int p = z0 - 1 + k;
    r[k] = make_float4(0.f, 0.f, 0.f, 0.f);
    if (p <= z1) {
      r[k] = st3_own(inp, p, yl, j0, H, W, vec);
      st3_halo(ring + k * STAGE, inp, p, x0, y0, H, W, vec);
    }
    st3_commit();
  }
  for (int zb = z0; zb < z1; zb += N) {
#pragma unroll
    for (int u = 0; u < N; ++u) {  // step z = zb + u: plane z - 1 in slot u, z in u + 1, z + 1 in u + 2
      const int z = zb + u;
      if (z >= z1) break;  // (uniform)
      float* sb = ring + ((u + 1) % N) * STAGE;
      *reinterpret_cast<float4*>(sb + (ty + 1) * RW + col) = r[(u + 1) % N];  // own row of plane z
      st3_wait<K + 1>();  // plane z's halos have landed (this thread's copies) ...
      __syncthreads();    // ... everyone's, and every row of plane z is stored; step z - 1 is done everywhere
      const float4 cur = r[(u + 1) % N], zm = r[u], zp = r[(u + 2) % N];
      const float* row = sb + (ty + 1) * RW;
      const float4 ym = *reinterpret_cast<const float4*>(row - RW + col);
      const float4 yp = *reinterpret_cast<const float4*>(row + RW + col);
      float left = __shfl_up_sync(0xffffffffu, cur.w, 1);
      float right = __shfl_down_sync(0xffffffffu, cur.x, 1);
      if (lane == 0) left = row[3];
      if (lane == TX - 1) right = row[4 + 4 * TX];
      if (y <= H - 2) {
        float4 o;
        o.x = 0.4f * cur.x + 0.1f * (left + cur.y + ym.x + yp.x + zm.x + zp.x);
        o.y = 0.4f * cur.y + 0.1f * (cur.x + cur.z + ym.y + yp.y + zm.y + zp.y);
        o.z = 0.4f * cur.z + 0.1f * (cur.y + cur.w + ym.z + yp.z + zm.z + zp.z);
        o.w = 0.4f * cur.w + 0.1f * (cur.z + right + ym.w + yp.w + zm.w + zp.w);
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
      // plane z + K + 2 into slot u (plane z - 1's register, and its stage, read by everyone before
      // this step's barrier)
      const int pn = z + K + 2;
      if (pn <= z1) {
        r[u] = st3_own(inp, pn, yl, j0, H, W, vec);
        st3_halo(ring + u * STAGE, inp, pn, x0, y0, H, W, vec);
      }
      st3_commit();
    }
  }
  st3_wait<0>();  // (only empty groups are left: every plane copied was read)
}
