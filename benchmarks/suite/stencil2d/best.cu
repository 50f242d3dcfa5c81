// 5-point stencil, hand-written: register sliding window down the rows.
// A thread owns 4 neighbouring columns (one float4) and marches down a strip of RB output rows,
// holding the rows above, at and below the current one in registers, so each input row is loaded
// once per strip (plus the strip's two halo rows). The next U rows are loaded before any of them is
// used (U float4 in flight per thread). Left and right neighbours come from the neighbouring lanes
// (warp shuffles); the warp's first and last lanes load the one column beyond the warp's 128 with
// the row. Interior points only; the boundary of out is not written. W a multiple of 4: 16-byte
// loads and stores; otherwise the same scheme with scalar accesses.
#define RB 64    // output rows per block (the strip)
#define U 4      // rows loaded ahead
#define TPB 128  // threads per block: 4 warps, 512 columns

__device__ __forceinline__ float4 st2_row4(const float* __restrict__ row, int j0, int W, bool vec) {
  if (vec) return j0 < W ? __ldg(reinterpret_cast<const float4*>(row + j0)) : make_float4(0.f, 0.f, 0.f, 0.f);
  float4 v;
  v.x = j0 < W ? __ldg(row + j0) : 0.f;
  v.y = j0 + 1 < W ? __ldg(row + j0 + 1) : 0.f;
  v.z = j0 + 2 < W ? __ldg(row + j0 + 2) : 0.f;
  v.w = j0 + 3 < W ? __ldg(row + j0 + 3) : 0.f;
  return v;
}

// the column just left of the warp's first (lane 0) or just right of its last (lane 31); 0 elsewhere
__device__ __forceinline__ float st2_edge(const float* __restrict__ row, int lane, int j0, int W) {
  if (lane == 0) return j0 > 0 && j0 - 1 < W ? __ldg(row + j0 - 1) : 0.f;
  if (lane == 31) return j0 + 4 < W ? __ldg(row + j0 + 4) : 0.f;
  return 0.f;
}

__global__ void __launch_bounds__(TPB) stencil2d(float* __restrict__ out, const float* __restrict__ inp, int H, int W) {
  const int lane = threadIdx.x & 31;
  const int j0 = (blockIdx.x * TPB + threadIdx.x) * 4;
  const int r0 = 1 + blockIdx.y * RB;  // the strip's first output row
  const int r1 = min(H - 1, r0 + RB);  // one past its last
  if (r0 >= r1) return;                // (uniform over the block: H < 3)
  const bool vec = (W & 3) == 0;

  float4 up = st2_row4(inp + (size_t)(r0 - 1) * W, j0, W, vec);
  float4 mid = st2_row4(inp + (size_t)r0 * W, j0, W, vec);
  float mide = st2_edge(inp + (size_t)r0 * W, lane, j0, W);

  for (int i = r0; i < r1; i += U) {
    float4 nx[U];
    float ne[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {  // rows i+1 .. i+U: the row below each of the next U outputs
      const int r = i + 1 + u;
      const float* row = inp + (size_t)r * W;
      nx[u] = make_float4(0.f, 0.f, 0.f, 0.f);
      ne[u] = 0.f;
      if (r <= r1) {  // r1 <= H - 1: the row exists
        nx[u] = st2_row4(row, j0, W, vec);
        ne[u] = st2_edge(row, lane, j0, W);
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int r = i + u;
      float left = __shfl_up_sync(0xffffffffu, mid.w, 1);
      float right = __shfl_down_sync(0xffffffffu, mid.x, 1);
      if (lane == 0) left = mide;
      if (lane == 31) right = mide;
      if (r < r1) {
        const float4 dn = nx[u];
        float4 o;
        o.x = 0.6f * mid.x + 0.1f * (up.x + dn.x + left + mid.y);
        o.y = 0.6f * mid.y + 0.1f * (up.y + dn.y + mid.x + mid.z);
        o.z = 0.6f * mid.z + 0.1f * (up.z + dn.z + mid.y + mid.w);
        o.w = 0.6f * mid.w + 0.1f * (up.w + dn.w + mid.z + right);
        float* orow = out + (size_t)r * W;
        if (vec && j0 >= 4 && j0 + 4 < W) {  // all four columns interior
          *reinterpret_cast<float4*>(orow + j0) = o;
        } else {
          if (j0 >= 1 && j0 <= W - 2) orow[j0] = o.x;
          if (j0 + 1 <= W - 2) orow[j0 + 1] = o.y;
          if (j0 + 2 <= W - 2) orow[j0 + 2] = o.z;
          if (j0 + 3 <= W - 2) orow[j0 + 3] = o.w;
        }
      }
      up = mid;
      mid = nx[u];
      mide = ne[u];
    }
  }
}
