// Layer normalization, hand-written: a block of 256 threads per row; each thread keeps up to
// four float4 of its row in registers (C <= 4096, C a multiple of 4), so the row is read from
// memory once; mean, then the variance around it, are block-reduced with shuffles. Other
// widths take a plain path over memory (same arithmetic, element by element).
#define LN_THREADS 256
#define LN_VECS 4

__device__ __forceinline__ float block_sum(float v, float* scratch) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < LN_THREADS / 32 ? scratch[lane] : 0.0f;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  __syncthreads();
  return v;
}

__global__ void __launch_bounds__(LN_THREADS) layernorm_forward(float* __restrict__ out, float* __restrict__ mean,
                                                                float* __restrict__ rstd, const float* __restrict__ inp,
                                                                const float* __restrict__ weight,
                                                                const float* __restrict__ bias, int N, int C) {
  __shared__ float scratch[32];
  const int row = blockIdx.x;
  if (row >= N) return;
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
    return;
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
  const float4* w = reinterpret_cast<const float4*>(weight);
  const float4* bb = reinterpret_cast<const float4*>(bias);
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
