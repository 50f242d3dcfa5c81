// Four elements per thread, a block's width apart (block-cyclic): i = base + k * blockDim.x.
// expect: y [n] out; x [n] in
__global__ void sigmoid4(float* y, const float* x, int n) {
  int base = blockIdx.x * blockDim.x * 4 + threadIdx.x;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    int i = base + k * blockDim.x;
    if (i < n) y[i] = 1.0f / (1.0f + expf(-x[i]));
  }
}
