// SAXPY over a grid-stride loop, no host code: the grid is one thread per element.
// expect: y [n] inout; x [n] in
__global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    y[i] = a * x[i] + y[i];
  }
}
