// launch: {"grid": ["cdiv(N, 1 + 7 * min(1, max(0, 769 - C)))"], "block": [256]}
// Layer normalization, one kernel with two mappings chosen from C: rows of at most 768 columns
// (C a multiple of 4) take ln_warp's path, a warp per row and 8 rows per block of 256 with 6 float4
// per lane in registers (shuffles only); other rows take best.cu's block of 256 per row, unchanged
// (up to 4 float4 per thread, C <= 4096, else element by element). The launch gives 8 rows per block
// at C <= 768 and one above; both paths stride over the rows by the grid, so any grid is correct.
// __launch_bounds__(256, 6) caps it at best.cu's 40 registers: 6 blocks per SM as best.cu at 4096,
// 48 rows per SM at 768 (best.cu: 6).
#define LN_THREADS 256
#define LN_VECS 4
#define LN_WVECS 6

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ float block_sum(float v, float* scratch) {
  v = warp_sum(v);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < LN_THREADS / 32 ? scratch[lane] : 0.0f;
  v = warp_sum(v);
  __syncthreads();
  return v;
}

__global__ void __launch_bounds__(LN_THREADS, 6) layernorm_forward(float* __restrict__ out, float* __restrict__ mean,
                                                                   float* __restrict__ rstd, const float* __restrict__ inp,
                                                                   const float* __restrict__ weight,
                                                                   const float* __restrict__ bias, int N, int C) {
  __shared__ float scratch[32];
  const float4* w = reinterpret_cast<const float4*>(weight);
  const float4* bb = reinterpret_cast<const float4*>(bias);
  if (C % 4 == 0 && C <= 128 * LN_WVECS) {
    // a warp per row
    const int lane = threadIdx.x & 31, nv = C >> 2;
    for (int row = blockIdx.x * (LN_THREADS / 32) + (threadIdx.x >> 5); row < N; row += gridDim.x * (LN_THREADS / 32)) {
      const float4* x = reinterpret_cast<const float4*>(inp + (size_t)row * C);
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
    return;
  }
  // best.cu: a block per row (the loop's condition is the same in the whole block)
  for (int row = blockIdx.x; row < N; row += gridDim.x) {
    if (C % 4 != 0 || C > LN_THREADS * LN_VECS * 4) {
      const float* xs = inp + (size_t)row * C;
      float s = 0.0f;
      for (int i = threadIdx.x; i < C; i += LN_THREADS) s += xs[i];
      const float m = block_sum(s, scratch) / C;
      float q = 0.0f;
      for (int i = threadIdx.x; i < C; i += LN_THREADS) q += (xs[i] - m) * (xs[i] - m);
      const float inv = rsqrtf(block_sum(q, scratch) / C + 1e-5f);
      float* o = out + (size_t)row * C;
      for (int i = threadIdx.x; i < C; i += LN_THREADS) o[i] = (xs[i] - m) * inv * weight[i] + bias[i];
      if (threadIdx.x == 0) {
        mean[row] = m;
        rstd[row] = inv;
      }
      continue;
    }
    const float4* x = reinterpret_cast<const float4*>(inp + (size_t)row * C);
    const int nv = C / 4;
    float4 r[LN_VECS];
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < LN_VECS; ++k) {
      const int i = threadIdx.x + k * LN_THREADS;
      r[k] = i < nv ? x[i] : make_float4(0.f, 0.f, 0.f, 0.f);
      s += (r[k].x + r[k].y) + (r[k].z + r[k].w);
    }
    const float m = block_sum(s, scratch) / C;
    float q = 0.0f;
#pragma unroll
    for (int k = 0; k < LN_VECS; ++k) {
      const int i = threadIdx.x + k * LN_THREADS;
      if (i < nv) {
        const float a = r[k].x - m, b = r[k].y - m, c = r[k].z - m, d = r[k].w - m;
        q += (a * a + b * b) + (c * c + d * d);
      }
    }
    const float inv = rsqrtf(block_sum(q, scratch) / C + 1e-5f);
    float4* o = reinterpret_cast<float4*>(out + (size_t)row * C);
#pragma unroll
    for (int k = 0; k < LN_VECS; ++k) {
      const int i = threadIdx.x + k * LN_THREADS;
      if (i < nv) {
        const float4 wv = w[i], bv = bb[i];
        o[i] = make_float4((r[k].x - m) * inv * wv.x + bv.x, (r[k].y - m) * inv * wv.y + bv.y,
                           (r[k].z - m) * inv * wv.z + bv.z, (r[k].w - m) * inv * wv.w + bv.w);
      }
    }
    if (threadIdx.x == 0) {
      mean[row] = m;
      rstd[row] = inv;
    }
  }
}
