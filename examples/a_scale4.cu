// a_scale4.cu -- y = a * x + b, element-wise, four consecutive floats per thread.
// Defect: each thread handles x[i .. i+3] with four separate 32-bit loads (LDG.E) and four
// 32-bit stores (STG.E): the compiler cannot prove 16-byte alignment, so it never merges
// them into one 128-bit access. Four times the memory instructions for the same bytes.
// Found by: narrow-global-access (kernelpro.profilers.rules.vector_loads).
// Fixed twin: a_scale4_fixed.cu (float4 loads and stores, an alignment guard, a scalar tail).

__global__ void scale_bias(const float* __restrict__ x, float* __restrict__ y, float a, float b, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (i + 3 < n) {
#pragma unroll
    for (int j = 0; j < 4; ++j) y[i + j] = a * x[i + j] + b;
  } else {
    for (int j = i; j < n; ++j) y[j] = a * x[j] + b;
  }
}

void launch_scale_bias(const float* x, float* y, float a, float b, int n) {
  int threads = (n + 3) / 4;
  scale_bias<<<(threads + 255) / 256, 256>>>(x, y, a, b, n);
}
