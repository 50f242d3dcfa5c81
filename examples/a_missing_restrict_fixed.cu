// a_missing_restrict_fixed.cu -- 3-point weighted stencil.
// Fixed twin of a_missing_restrict.cu: the read-only pointers are `const float* __restrict__`
// and the output is `float* __restrict__`, so loads go through the read-only path
// (LDG.E...CONSTANT). missing-restrict stays silent here.

__global__ void stencil3(float* __restrict__ out,
                         const float* __restrict__ in,
                         const float* __restrict__ w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) {
    out[i] = w[0] * in[i - 1] + w[1] * in[i] + w[2] * in[i + 1];
  }
}

void launch_stencil3(float* out, const float* in, const float* w, int n) {
  stencil3<<<(n + 255) / 256, 256>>>(out, in, w, n);
}
