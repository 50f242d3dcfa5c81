// 3x3 convolution with literal weights, hand-written: register sliding window down the rows.
// A thread owns 4 neighbouring columns (one float4) and marches down a strip of RB output rows,
// holding three input rows (above, at and below the output row) with each row's left and right
// neighbour in registers: each input row is loaded once per strip (plus two halo rows), the next U
// rows before any of them is used. A row's neighbours come from the neighbouring lanes (warp
// shuffles, once per row); the warp's first and last lanes load the one column beyond the warp's
// 128 with the row. Zero padding: rows and columns outside the image are 0. W a multiple of 4:
// 16-byte loads and stores; otherwise the same scheme with scalar accesses.
#define RB 64    // output rows per block (the strip)
#define U 4      // rows loaded ahead
#define TPB 128  // threads per block: 4 warps, 512 columns

#define W00 0.0625f
#define W01 0.125f
#define W02 (-0.0625f)
#define W10 0.25f
#define W11 0.5f
#define W12 0.125f
#define W20 (-0.125f)
#define W21 0.25f
#define W22 0.0625f

struct c3_row {
  float4 v;  // the thread's four columns
  float l, r;  // the columns just left and just right of them
};

__device__ __forceinline__ float4 c3_load4(const float* __restrict__ row, int j0, int W, bool vec) {
  if (vec) return j0 < W ? __ldg(reinterpret_cast<const float4*>(row + j0)) : make_float4(0.f, 0.f, 0.f, 0.f);
  float4 v;
  v.x = j0 < W ? __ldg(row + j0) : 0.f;
  v.y = j0 + 1 < W ? __ldg(row + j0 + 1) : 0.f;
  v.z = j0 + 2 < W ? __ldg(row + j0 + 2) : 0.f;
  v.w = j0 + 3 < W ? __ldg(row + j0 + 3) : 0.f;
  return v;
}

// the column just left of the warp's first (lane 0) or just right of its last (lane 31); 0 elsewhere
__device__ __forceinline__ float c3_edge(const float* __restrict__ row, int lane, int j0, int W) {
  if (lane == 0) return j0 > 0 && j0 - 1 < W ? __ldg(row + j0 - 1) : 0.f;
  if (lane == 31) return j0 + 4 < W ? __ldg(row + j0 + 4) : 0.f;
  return 0.f;
}

// a loaded row with its neighbours: from the lanes beside (the edge lanes: the loaded edge)
__device__ __forceinline__ c3_row c3_finish(float4 v, float edge, int lane) {
  c3_row r;
  r.v = v;
  r.l = __shfl_up_sync(0xffffffffu, v.w, 1);
  r.r = __shfl_down_sync(0xffffffffu, v.x, 1);
  if (lane == 0) r.l = edge;
  if (lane == 31) r.r = edge;
  return r;
}

__global__ void __launch_bounds__(TPB) conv3x3(float* __restrict__ out, const float* __restrict__ inp, int H, int W) {
  const int lane = threadIdx.x & 31;
  const int j0 = (blockIdx.x * TPB + threadIdx.x) * 4;
  const int r0 = blockIdx.y * RB;      // the strip's first output row
  const int r1 = min(H, r0 + RB);      // one past its last
  const bool vec = (W & 3) == 0;
  const float4 zero = make_float4(0.f, 0.f, 0.f, 0.f);

  c3_row up = c3_finish(zero, 0.f, lane);
  if (r0 > 0) {
    const float* row = inp + (size_t)(r0 - 1) * W;
    up = c3_finish(c3_load4(row, j0, W, vec), c3_edge(row, lane, j0, W), lane);
  }
  const float* row0 = inp + (size_t)r0 * W;
  c3_row mid = c3_finish(c3_load4(row0, j0, W, vec), c3_edge(row0, lane, j0, W), lane);

  for (int i = r0; i < r1; i += U) {
    float4 nx[U];
    float ne[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {  // rows i+1 .. i+U: the row below each of the next U outputs
      const int r = i + 1 + u;
      const float* row = inp + (size_t)r * W;
      nx[u] = zero;
      ne[u] = 0.f;
      if (r < H && r <= r1) {
        nx[u] = c3_load4(row, j0, W, vec);
        ne[u] = c3_edge(row, lane, j0, W);
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const c3_row dn = c3_finish(nx[u], ne[u], lane);
      const int r = i + u;
      if (r < r1 && j0 < W) {
        float4 o;
        o.x = W00 * up.l + W01 * up.v.x + W02 * up.v.y + W10 * mid.l + W11 * mid.v.x + W12 * mid.v.y +
              W20 * dn.l + W21 * dn.v.x + W22 * dn.v.y;
        o.y = W00 * up.v.x + W01 * up.v.y + W02 * up.v.z + W10 * mid.v.x + W11 * mid.v.y + W12 * mid.v.z +
              W20 * dn.v.x + W21 * dn.v.y + W22 * dn.v.z;
        o.z = W00 * up.v.y + W01 * up.v.z + W02 * up.v.w + W10 * mid.v.y + W11 * mid.v.z + W12 * mid.v.w +
              W20 * dn.v.y + W21 * dn.v.z + W22 * dn.v.w;
        o.w = W00 * up.v.z + W01 * up.v.w + W02 * up.r + W10 * mid.v.z + W11 * mid.v.w + W12 * mid.r +
              W20 * dn.v.z + W21 * dn.v.w + W22 * dn.r;
        float* orow = out + (size_t)r * W;
        if (vec) {
          *reinterpret_cast<float4*>(orow + j0) = o;
        } else {
          orow[j0] = o.x;
          if (j0 + 1 < W) orow[j0 + 1] = o.y;
          if (j0 + 2 < W) orow[j0 + 2] = o.z;
          if (j0 + 3 < W) orow[j0 + 3] = o.w;
        }
      }
      up = mid;
      mid = dn;
    }
  }
}
