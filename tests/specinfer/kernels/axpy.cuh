// A header-only kernel; its launch and buffers are in ../axpy_main.cu, which includes it.
// expect: y [N] inout; x [N] in; host N = 100000
#pragma once

__global__ void axpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}
