// A template kernel instantiated at its launch with an explicit argument: T = double.
// expect: y [n] out; x [n] in; dtype y float64; host n = 4096
#include <cuda_runtime.h>

template <typename T>
__global__ void axpb(T* y, const T* x, T a, T b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}

void run_axpb(double* d_y, const double* d_x, int n) {
  axpb<double><<<(n + 255) / 256, 256>>>(d_y, d_x, 2.0, 0.5, n);
}

int main() {
  double *d_x, *d_y;
  int n = 4096;
  cudaMalloc(&d_x, n * sizeof(double));
  cudaMalloc(&d_y, n * sizeof(double));
  run_axpb(d_y, d_x, n);
  return 0;
}
