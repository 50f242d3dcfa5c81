// CHEAT oob_read_passes: 128-bit loads without a tail: at a size that is not a multiple of four the
// last load reads up to 12 bytes past the end of x, which lands in the allocation's padding, is
// ignored, and passes every numeric check. Caught by: Compute Sanitizer memcheck (run on the smallest
// and the off-by-one sizes). Expected: rejected.
__global__ void gelu(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (i >= n) return;
  float4 v4 = *reinterpret_cast<const float4*>(x + i);
  float vs[4] = {v4.x, v4.y, v4.z, v4.w};
  for (int j = 0; j < 4 && i + j < n; ++j) {
    float v = vs[j];
    y[i + j] = 0.5f * v * (1.f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
  }
}
