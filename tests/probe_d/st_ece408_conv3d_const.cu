// launch: grid cdiv(x_size, 8), cdiv(y_size, 8), cdiv(z_size, 8) block 8, 8, 8
// sizes: z_size=40 y_size=50 x_size=60
// expect: stencil-tile|stencil-march
// ECE408 MP "3-D convolution": 3x3x3 kernel in __constant__ memory, one thread per output voxel, 3-D thread index
#include <cuda_runtime.h>

#define KERNEL_WIDTH 3
#define KERNEL_RADIUS 1

//@@ Define constant memory for device kernel here
__constant__ float deviceKernel[KERNEL_WIDTH][KERNEL_WIDTH][KERNEL_WIDTH];

__global__ void conv3d(float *input, float *output, const int z_size,
                       const int y_size, const int x_size) {
  //@@ Insert kernel code here
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;

  if (x < x_size && y < y_size && z < z_size) {
    float res = 0.0f;
    for (int i = 0; i < KERNEL_WIDTH; i++) {
      for (int j = 0; j < KERNEL_WIDTH; j++) {
        for (int k = 0; k < KERNEL_WIDTH; k++) {
          int zz = z - KERNEL_RADIUS + i;
          int yy = y - KERNEL_RADIUS + j;
          int xx = x - KERNEL_RADIUS + k;
          if (zz >= 0 && zz < z_size && yy >= 0 && yy < y_size && xx >= 0 && xx < x_size)
            res += deviceKernel[i][j][k] * input[zz * (y_size * x_size) + yy * x_size + xx];
        }
      }
    }
    output[z * (y_size * x_size) + y * x_size + x] = res;
  }
}

void launch_conv3d(float *deviceInput, float *deviceOutput, const float *hostKernel,
                   int z_size, int y_size, int x_size) {
  cudaMemcpyToSymbol(deviceKernel, hostKernel, KERNEL_WIDTH * KERNEL_WIDTH * KERNEL_WIDTH * sizeof(float));
  dim3 dimBlock(8, 8, 8);
  dim3 dimGrid(ceil(x_size / 8.0), ceil(y_size / 8.0), ceil(z_size / 8.0));
  conv3d<<<dimGrid, dimBlock>>>(deviceInput, deviceOutput, z_size, y_size, x_size);
  cudaDeviceSynchronize();
}
