// Layer norm with a warp per row: the row is the global thread index over 32, the lane its remainder.
// expect: out [N, C] out; inp [N, C] in; weight [C] in; bias [C] in
__global__ void layernorm_warp(float* __restrict__ out, const float* __restrict__ inp, const float* __restrict__ weight,
                               const float* __restrict__ bias, int N, int C, float eps) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (warp >= N) return;
  const float* x = inp + warp * C;
  float sum = 0.0f;
  for (int i = lane; i < C; i += 32) sum += x[i];
  for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffff, sum, o);
  float mean = sum / C;
  float var = 0.0f;
  for (int i = lane; i < C; i += 32) { float d = x[i] - mean; var += d * d; }
  for (int o = 16; o > 0; o /= 2) var += __shfl_xor_sync(0xffffffff, var, o);
  float rstd = rsqrtf(var / C + eps);
  float* y = out + warp * C;
  for (int i = lane; i < C; i += 32) y[i] = (x[i] - mean) * rstd * weight[i] + bias[i];
}
