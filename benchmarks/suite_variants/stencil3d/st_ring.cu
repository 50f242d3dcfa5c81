// launch: {"grid": ["cdiv(W, 128)", "cdiv(max(H - 2, 1), 16)", "cdiv(max(D - 2, 1), 64)"], "block": [32, 16], "shared_bytes": "6 * 18 * 136 * 4"}
// 7-point 3-D stencil, hand-written: 2.5-D blocking through a ring of plane tiles in shared memory.
// A block is a 128 x TY tile of the (x, y) plane (32 lanes x float4 by TY warps) marching along z
// through a strip of ZB output planes. Each plane's tile (with a halo row above and below, and a
// halo column each side of the own rows) is copied global -> shared with cp.async into a ring of
// S = P + 3 stages: the planes below, at and above the current one are read while the next P are in
// flight, so every input point is loaded once per strip (plus the halos) and P planes of loads are
// outstanding at every step, one __syncthreads per plane. z and y neighbours come from the ring, x
// neighbours from the neighbouring lanes (warp shuffles), the tile's edge lanes from the halo
// columns. Interior points only; the boundary of out is not written. W a multiple of 4: 16-byte
// copies and stores; otherwise the same scheme with 4-byte copies. In the CPU emulator
// (KP_EMULATOR_HOOKS) the copies are plain copies.
#define TX 32                         // lanes: 128 columns
#define TY 16                         // warps: rows of the tile
#define ZB 64                         // output planes per block
#define P 3                           // planes in flight beyond the three being read
#define S (P + 3)                     // stages of the ring
#define RW 136                        // floats per tile row: left halo at 3, columns at 4..131, right halo at 132
#define STAGE ((TY + 2) * RW)         // floats per stage: TY rows and the two halo rows
// dynamic shared memory: S * STAGE * 4 = 58752 bytes (the spec's shared_bytes)

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

// plane p's tile into a stage: this thread's own row (tile row ty + 1) and, for the first and last
// warps, the halo row above or below; the edge lanes the halo columns of the own row. Outside the
// grid: zeros (never stored).
__device__ __forceinline__ void st3_issue(float* stage, const float* __restrict__ inp, int p, int x0, int y0, int H,
                                          int W, bool vec) {
  const int lane = threadIdx.x, ty = threadIdx.y;
  const float* plane = inp + (size_t)p * H * W;
  const int j0 = x0 + 4 * lane;
  for (int h = 0; h < 2; ++h) {
    const int t = h == 0 ? ty + 1 : (ty == 0 ? 0 : (ty == TY - 1 ? TY + 1 : -1));
    if (t < 0) continue;
    const int y = y0 - 1 + t;
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

__global__ void __launch_bounds__(TX * TY) stencil3d(float* __restrict__ out, const float* __restrict__ inp, int D,
                                                     int H, int W) {
  extern __shared__ float4 st3_ring[];
  float* ring = reinterpret_cast<float*>(st3_ring);
  const int lane = threadIdx.x, ty = threadIdx.y;
  const int x0 = blockIdx.x * TX * 4;
  const int y0 = 1 + blockIdx.y * TY;  // the tile's first output row
  const int z0 = 1 + blockIdx.z * ZB;  // the strip's first output plane
  const int z1 = min(D - 1, z0 + ZB);  // one past its last
  if (z0 >= z1 || y0 > H - 2) return;  // (uniform over the block: a grid too small for an interior)
  const bool vec = (W & 3) == 0;
  const int j0 = x0 + 4 * lane;
  const int y = y0 + ty;

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

    const float* sa = ring + ((z - 1) % S) * STAGE + (ty + 1) * RW;
    const float* sb = ring + (z % S) * STAGE + (ty + 1) * RW;
    const float* sc = ring + ((z + 1) % S) * STAGE + (ty + 1) * RW;
    const float4 cur = *reinterpret_cast<const float4*>(sb + 4 + 4 * lane);
    const float4 ym = *reinterpret_cast<const float4*>(sb - RW + 4 + 4 * lane);
    const float4 yp = *reinterpret_cast<const float4*>(sb + RW + 4 + 4 * lane);
    const float4 zm = *reinterpret_cast<const float4*>(sa + 4 + 4 * lane);
    const float4 zp = *reinterpret_cast<const float4*>(sc + 4 + 4 * lane);
    float left = __shfl_up_sync(0xffffffffu, cur.w, 1);
    float right = __shfl_down_sync(0xffffffffu, cur.x, 1);
    if (lane == 0) left = sb[3];
    if (lane == TX - 1) right = sb[4 + 4 * TX];
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
  }
  st3_wait<0>();  // (only empty groups are left: every plane copied was read)
}
