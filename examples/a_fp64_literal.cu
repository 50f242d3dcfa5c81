// a_fp64_literal.cu -- GELU activation (tanh approximation) over a float tensor.
// Defect: the constants 0.5, 1.0, 0.7978845608 and 0.044715 have no f suffix, so they are
// doubles: every product is promoted to FP64 (DMUL/DFMA plus F2F conversions in the SASS).
// FP64 runs at 1/2 of the FP32 rate on an H100/H200 and at 1/64 on consumer GPUs.
// Found by: fp64-in-float-kernel (kernelpro.profilers.rules.fp64).
// Fixed twin: a_fp64_literal_fixed.cu (0.5f, 1.0f, ...).

__global__ void gelu(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    float inner = 0.7978845608 * (v + 0.044715 * v * v * v);
    y[i] = 0.5 * v * (1.0 + tanhf(inner));
  }
}

void launch_gelu(const float* x, float* y, int n) {
  gelu<<<(n + 255) / 256, 256>>>(x, y, n);
}
