// a_fp64_literal_fixed.cu -- GELU activation (tanh approximation) over a float tensor.
// Fixed twin of a_fp64_literal.cu: every constant is a float literal (f suffix), so the
// kernel runs only FP32 instructions. fp64-in-float-kernel stays silent here.

__global__ void gelu(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    float inner = 0.7978845608f * (v + 0.044715f * v * v * v);
    y[i] = 0.5f * v * (1.0f + tanhf(inner));
  }
}

void launch_gelu(const float* x, float* y, int n) {
  gelu<<<(n + 255) / 256, 256>>>(x, y, n);
}
