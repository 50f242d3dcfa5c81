// launch: grid 1024 block 256
// sizes: n=10000000
// expect: elementwise
// in-place ReLU, grid-stride
__global__ void relu_(float* x, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x)
    if (x[i] < 0.f) x[i] = 0.f;
}
