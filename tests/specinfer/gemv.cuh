// A header kernel (matrix-vector product, a thread per row) with its host file gemv_host.cu.
// expect: y [rows] out; A [rows, cols] in; x [cols] in; host rows = 777, cols = 129
#pragma once

__global__ void gemv(float* y, const float* A, const float* x, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float acc = 0.0f;
    for (int c = 0; c < cols; ++c) acc += A[(size_t)r * cols + c] * x[c];
    y[r] = acc;
  }
}
