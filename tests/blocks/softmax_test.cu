// Test harness for kernelpro/online_softmax.cuh (called through ctypes).
#include <kernelpro/online_softmax.cuh>

__global__ void softmax_warp_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (row < rows) kernelpro::softmax_row_warp(in + size_t(row) * cols, out + size_t(row) * cols, cols);
}

extern "C" int kp_softmax_block(const float* in, float* out, int rows, int cols) {
  kernelpro::softmax_rows<256><<<rows, 256>>>(in, out, cols);
  return cudaGetLastError();
}

extern "C" int kp_softmax_warp(const float* in, float* out, int rows, int cols) {
  softmax_warp_kernel<<<(rows * 32 + 127) / 128, 128>>>(in, out, rows, cols);
  return cudaGetLastError();
}
