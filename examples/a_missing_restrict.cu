// a_missing_restrict.cu -- 3-point weighted stencil, out[i] = w0*in[i-1] + w1*in[i] + w2*in[i+1].
// Defect: `in` and `w` are only read but are declared plain `float*`: without const and
// __restrict__ the compiler must assume they may alias `out`, so it cannot use the read-only
// (LDG.E...CONSTANT) path nor keep loaded values across the store.
// Found by: missing-restrict (kernelpro.profilers.rules.restrict).
// Fixed twin: a_missing_restrict_fixed.cu (const float* __restrict__ in, float* __restrict__ out).

__global__ void stencil3(float* out,
                         float* in,
                         float* w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) {
    out[i] = w[0] * in[i - 1] + w[1] * in[i] + w[2] * in[i + 1];
  }
}

void launch_stencil3(float* out, float* in, float* w, int n) {
  stencil3<<<(n + 255) / 256, 256>>>(out, in, w, n);
}
