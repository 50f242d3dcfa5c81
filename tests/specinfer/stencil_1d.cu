// 1-D stencil of radius 3 reading inside its guard: the input is read 3 past each output.
// expect: in [n] in; out [n] out
#define RADIUS 3

__global__ void stencil_1d(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= RADIUS && i < n - RADIUS) {
    float s = 0.0f;
    for (int o = -RADIUS; o <= RADIUS; ++o) s += in[i + o];
    out[i] = s / (2 * RADIUS + 1);
  }
}
