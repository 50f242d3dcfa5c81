// launch: {"grid": ["cdiv(N, 8)"], "block": [256]}
// Layer normalization, a warp per row, 8 rows per block of 256: each lane keeps up to LN_WVECS
// float4 of its row in registers (C <= 128 * LN_WVECS, C a multiple of 4; 6 per lane at 768), all
// loads issued before the first add; mean, then the variance around it, reduced with shuffles only
// (no shared memory, no __syncthreads). Other widths (C % 4 != 0 or wider rows, e.g. 4096): the
// warp walks its row in memory, element by element, three times (same arithmetic).
// 54 registers (the compiler issues the weight and bias loads of all 8 float4 together): 4 blocks
// per SM, 32 rows (96 KB of loads) in flight per SM at 768 (best.cu: 6 rows, 18 KB).
#define LN_WVECS 8

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__global__ void __launch_bounds__(256) layernorm_forward(float* __restrict__ out, float* __restrict__ mean,
                                                         float* __restrict__ rstd, const float* __restrict__ inp,
                                                         const float* __restrict__ weight,
                                                         const float* __restrict__ bias, int N, int C) {
  const int lane = threadIdx.x & 31;
  const int rows_per_block = blockDim.x >> 5;
  // grid-stride over rows: any grid covers N (the launch gives one row per warp)
  for (int row = blockIdx.x * rows_per_block + (threadIdx.x >> 5); row < N; row += gridDim.x * rows_per_block) {
    if (C % 4 != 0 || C > 128 * LN_WVECS) {
      const float* xs = inp + (size_t)row * C;
      float s = 0.0f;
      for (int i = lane; i < C; i += 32) s += xs[i];
      const float m = warp_sum(s) / C;
      float q = 0.0f;
      for (int i = lane; i < C; i += 32) q += (xs[i] - m) * (xs[i] - m);
      const float inv = rsqrtf(warp_sum(q) / C + 1e-5f);
      float* o = out + (size_t)row * C;
      for (int i = lane; i < C; i += 32) o[i] = (xs[i] - m) * inv * weight[i] + bias[i];
      if (lane == 0) {
        mean[row] = m;
        rstd[row] = inv;
      }
      continue;
    }
    const float4* x = reinterpret_cast<const float4*>(inp + (size_t)row * C);
    const int nv = C >> 2;
    float4 r[LN_WVECS];
#pragma unroll
    for (int k = 0; k < LN_WVECS; ++k) {
      const int i = lane + 32 * k;
      r[k] = i < nv ? x[i] : make_float4(0.f, 0.f, 0.f, 0.f);
    }
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < LN_WVECS; ++k) s += (r[k].x + r[k].y) + (r[k].z + r[k].w);
    const float m = warp_sum(s) / C;
    float q = 0.0f;
#pragma unroll
    for (int k = 0; k < LN_WVECS; ++k) {
      if (lane + 32 * k < nv) {
        const float a = r[k].x - m, b = r[k].y - m, c = r[k].z - m, d = r[k].w - m;
        q += (a * a + b * b) + (c * c + d * d);
      }
    }
    const float inv = rsqrtf(warp_sum(q) / C + 1e-5f);
    const float4* w = reinterpret_cast<const float4*>(weight);
    const float4* bb = reinterpret_cast<const float4*>(bias);
    float4* o = reinterpret_cast<float4*>(out + (size_t)row * C);
#pragma unroll
    for (int k = 0; k < LN_WVECS; ++k) {
      const int i = lane + 32 * k;
      if (i < nv) {
        const float4 wv = w[i], bv = bb[i];
        o[i] = make_float4((r[k].x - m) * inv * wv.x + bv.x, (r[k].y - m) * inv * wv.y + bv.y,
                           (r[k].z - m) * inv * wv.z + bv.z, (r[k].w - m) * inv * wv.w + bv.w);
      }
    }
    if (lane == 0) {
      mean[row] = m;
      rstd[row] = inv;
    }
  }
}
