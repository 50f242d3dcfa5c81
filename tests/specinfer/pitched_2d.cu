// A pitched 2-D image: rows `pitch` floats apart, the host's pitch is the width plus padding.
// expect: img [height, width + 20] inout; host width = 300, height = 200
#include <cuda_runtime.h>

__global__ void brighten(float* img, int width, int height, int pitch, float gain) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) img[y * pitch + x] *= gain;
}

int main() {
  int width = 300, height = 200;
  int pitch = width + 20;
  float* d_img;
  cudaMalloc(&d_img, sizeof(float) * pitch * height);
  dim3 threads(32, 4);
  dim3 blocks((width + 31) / 32, (height + 3) / 4);
  brighten<<<blocks, threads>>>(d_img, width, height, pitch, 1.25f);
  return 0;
}
