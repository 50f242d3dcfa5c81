// Transpose, hand-written: a TR x TC tile (64 rows x 32 columns of the input) through padded shared
// memory. 8 x 16 threads: each loads 4 float4 along the input's rows (8 lanes cover a tile row's
// 128 bytes), all four in flight before the first is stored to shared memory; after one barrier
// each writes 4 float4 along the output's rows, each gathered from four tile rows of one column.
// Rows of 33 floats (one of padding) keep both phases free of bank conflicts: a warp's 32 accesses
// of one instruction fall in 32 different banks (8 lanes x 4 consecutive rows or columns). Tiles
// that are cut by the matrix's edge, and sizes that are not a multiple of 4 (no 16-byte alignment),
// go element by element through the same tile.
#define TR 64  // tile rows (input)
#define TC 32  // tile columns (input)
#define BX 8   // threads along a tile row: TC / 4 float4
#define BY 16  // thread rows

__global__ void __launch_bounds__(BX * BY) transpose(float* __restrict__ out, const float* __restrict__ inp, int H,
                                                     int W) {
  __shared__ float tile[TR][TC + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int c0 = blockIdx.x * TC, r0 = blockIdx.y * TR;  // the tile's first input column and row
  const bool vec = r0 + TR <= H && c0 + TC <= W && (W & 3) == 0 && (H & 3) == 0;  // uniform over the block
  if (vec) {
    float4 v[TR / BY];
#pragma unroll
    for (int k = 0; k < TR / BY; ++k)
      v[k] = __ldg(reinterpret_cast<const float4*>(inp + (size_t)(r0 + ty + BY * k) * W + c0 + 4 * tx));
#pragma unroll
    for (int k = 0; k < TR / BY; ++k) {
      float* t = &tile[ty + BY * k][4 * tx];
      t[0] = v[k].x;
      t[1] = v[k].y;
      t[2] = v[k].z;
      t[3] = v[k].w;
    }
  } else {
#pragma unroll
    for (int k = 0; k < TR / BY; ++k) {
      const int r = r0 + ty + BY * k;
#pragma unroll
      for (int m = 0; m < 4; ++m) {
        const int c = c0 + 4 * tx + m;
        if (r < H && c < W) tile[ty + BY * k][4 * tx + m] = inp[(size_t)r * W + c];
      }
    }
  }
  __syncthreads();
  // out row c0 + c holds input column c0 + c; its 64 elements of this tile are 16 float4: thread (tx, ty)
  // writes float4 q = tx + 8 (k & 1) of out row c = ty + 16 (k >> 1)
#pragma unroll
  for (int k = 0; k < (TR / 4) * TC / (BX * BY); ++k) {
    const int c = ty + BY * (k >> 1);
    const int q = tx + BX * (k & 1);
    if (vec) {
      const float4 o = make_float4(tile[4 * q][c], tile[4 * q + 1][c], tile[4 * q + 2][c], tile[4 * q + 3][c]);
      *reinterpret_cast<float4*>(out + (size_t)(c0 + c) * H + r0 + 4 * q) = o;
    } else if (c0 + c < W) {
#pragma unroll
      for (int m = 0; m < 4; ++m)
        if (r0 + 4 * q + m < H) out[(size_t)(c0 + c) * H + r0 + 4 * q + m] = tile[4 * q + m][c];
    }
  }
}
