// Layer normalization, hand-written (benchmarks/suite_variants' ln_team, measured faster than the block of 256
// per row on the H100 on 2026-12-05: 18.3 against 26.6 us at 8192 x 768, 90.3 against 91.0 at 8192 x 4096): a block per row whose size follows C (one warp per 512 columns, 64 to 1024
// threads: 64 at 768, 256 at 4096), each thread keeping up to 4 float4 of the row in registers
// (3 at 768, 4 at 4096; C a multiple of 4 and at most 16 * blockDim.x), all loads before the first
// add; mean, then the variance around it, block-reduced with shuffles and two scratch arrays (one
// per reduction, so one __syncthreads each). __launch_bounds__(1024, 2) holds it to 32 registers:
// 2048 threads per SM at every block size (32 blocks of 64 at 768, 8 of 256 at 4096; best.cu's 40
// registers allow 6 blocks of 256). Other widths take a plain path over memory (element by element).
#define LN_TVECS 4

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// the block's sum, in every thread; scratch is not reused until the block has passed another barrier
__device__ __forceinline__ float block_sum(float v, float* scratch) {
  v = warp_sum(v);
  const int lane = threadIdx.x & 31;
  if (lane == 0) scratch[threadIdx.x >> 5] = v;
  __syncthreads();
  v = lane < (int)(blockDim.x >> 5) ? scratch[lane] : 0.0f;
  return warp_sum(v);
}

__global__ void __launch_bounds__(1024, 2) layernorm_forward(float* __restrict__ out, float* __restrict__ mean,
                                                             float* __restrict__ rstd, const float* __restrict__ inp,
                                                             const float* __restrict__ weight,
                                                             const float* __restrict__ bias, int N, int C) {
  __shared__ float scratch_m[32], scratch_v[32];
  const int row = blockIdx.x;
  if (row >= N) return;
  const int nt = blockDim.x;
  if (C % 4 != 0 || C > nt * LN_TVECS * 4) {
    const float* xs = inp + (size_t)row * C;
    float s = 0.0f;
    for (int i = threadIdx.x; i < C; i += nt) s += xs[i];
    const float m = block_sum(s, scratch_m) / C;
    float q = 0.0f;
    for (int i = threadIdx.x; i < C; i += nt) q += (xs[i] - m) * (xs[i] - m);
    const float inv = rsqrtf(block_sum(q, scratch_v) / C + 1e-5f);
    float* o = out + (size_t)row * C;
    for (int i = threadIdx.x; i < C; i += nt) o[i] = (xs[i] - m) * inv * weight[i] + bias[i];
    if (threadIdx.x == 0) {
      mean[row] = m;
      rstd[row] = inv;
    }
    return;
  }
  const float4* x = reinterpret_cast<const float4*>(inp + (size_t)row * C);
  const int nv = C >> 2;
  float4 r[LN_TVECS];
#pragma unroll
  for (int k = 0; k < LN_TVECS; ++k) {
    const int i = threadIdx.x + k * nt;
    r[k] = i < nv ? x[i] : make_float4(0.f, 0.f, 0.f, 0.f);
  }
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < LN_TVECS; ++k) s += (r[k].x + r[k].y) + (r[k].z + r[k].w);
  const float m = block_sum(s, scratch_m) / C;
  float q = 0.0f;
#pragma unroll
  for (int k = 0; k < LN_TVECS; ++k) {
    if (threadIdx.x + k * nt < nv) {
      const float a = r[k].x - m, b = r[k].y - m, c = r[k].z - m, d = r[k].w - m;
      q += (a * a + b * b) + (c * c + d * d);
    }
  }
  const float inv = rsqrtf(block_sum(q, scratch_v) / C + 1e-5f);
  const float4* w = reinterpret_cast<const float4*>(weight);
  const float4* bb = reinterpret_cast<const float4*>(bias);
  float4* o = reinterpret_cast<float4*>(out + (size_t)row * C);
#pragma unroll
  for (int k = 0; k < LN_TVECS; ++k) {
    const int i = threadIdx.x + k * nt;
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
