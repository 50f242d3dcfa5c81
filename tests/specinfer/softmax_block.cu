// Softmax with a block per row and a shared-memory reduction sized by the launch's dynamic shared memory.
// expect: out [rows, cols] out; in [rows, cols] in; grid [rows]; block [128]; host rows = 64, cols = 1000
#include <cuda_runtime.h>

__global__ void softmax_rows(float* out, const float* in, int rows, int cols) {
  extern __shared__ float buf[];
  int row = blockIdx.x;
  if (row >= rows) return;
  const float* x = in + (size_t)row * cols;
  float* y = out + (size_t)row * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, x[c]);
  buf[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buf[threadIdx.x] = fmaxf(buf[threadIdx.x], buf[threadIdx.x + s]);
    __syncthreads();
  }
  m = buf[0];
  __syncthreads();
  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += expf(x[c] - m);
  buf[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  sum = buf[0];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[c] = expf(x[c] - m) / sum;
}

int main() {
  int rows = 64, cols = 1000;
  float *d_in, *d_out;
  cudaMalloc(&d_in, rows * cols * sizeof(float));
  cudaMalloc(&d_out, rows * cols * sizeof(float));
  int threads = 128;
  softmax_rows<<<rows, threads, threads * sizeof(float)>>>(d_out, d_in, rows, cols);
  return 0;
}
