// The launch is in a wrapper; its sizes come from the wrapper's one call in main.
// expect: c [rows, cols] out; a [rows, cols] in; b [rows, cols] in; host rows = 123, cols = 456
#include <cuda_runtime.h>

__global__ void mat_add(float* c, const float* a, const float* b, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) {
    int i = row * cols + col;
    c[i] = a[i] + b[i];
  }
}

void launch_mat_add(float* c, const float* a, const float* b, int rows, int cols) {
  dim3 block(16, 16);
  dim3 grid((cols + 15) / 16, (rows + 15) / 16);
  mat_add<<<grid, block>>>(c, a, b, rows, cols);
}

int main() {
  int rows = 123;
  int cols = 456;
  float *a, *b, *c;
  cudaMalloc(&a, rows * cols * sizeof(float));
  cudaMalloc(&b, rows * cols * sizeof(float));
  cudaMalloc(&c, rows * cols * sizeof(float));
  launch_mat_add(c, a, b, rows, cols);
  return 0;
}
