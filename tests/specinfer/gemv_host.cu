// Host code for gemv.cuh: the grid through an iDivUp helper, sizes passed to a launch wrapper.
#include <cuda_runtime.h>
#include "gemv.cuh"

static int iDivUp(int a, int b) { return (a % b != 0) ? (a / b + 1) : (a / b); }

void launch_gemv(float* y, const float* A, const float* x, int rows, int cols) {
  gemv<<<iDivUp(rows, 128), 128>>>(y, A, x, rows, cols);
}

int main() {
  int rows = 777, cols = 129;
  float *A, *x, *y;
  cudaMalloc(&A, sizeof(float) * rows * cols);
  cudaMalloc(&x, sizeof(float) * cols);
  cudaMalloc(&y, sizeof(float) * rows);
  launch_gemv(y, A, x, rows, cols);
  return 0;
}
