// launch: grid cdiv(width, 16), cdiv(height, 16) block 16, 16
// sizes: channels=3 width=310 height=230
// expect: stencil-tile
// ECE408 MP "2-D image convolution": 5x5 mask in __constant__ memory, interleaved RGB float image, zero padding, clamp to [0,1]
#include <cuda_runtime.h>
#include <cstdio>

#define Mask_width 5
#define Mask_radius Mask_width / 2
#define clamp(x) (min(max((x), 0.0), 1.0))

__constant__ float M[Mask_width * Mask_width];

__global__ void convolution_2D_kernel(float *I, float *P, int channels, int width, int height) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;

  if (col < width && row < height) {
    for (int k = 0; k < channels; k++) {
      float accum = 0;
      for (int y = -Mask_radius; y <= Mask_radius; y++) {
        for (int x = -Mask_radius; x <= Mask_radius; x++) {
          int xOffset = col + x;
          int yOffset = row + y;
          if (xOffset >= 0 && xOffset < width && yOffset >= 0 && yOffset < height) {
            float imagePixel = I[(yOffset * width + xOffset) * channels + k];
            float maskValue = M[(y + Mask_radius) * Mask_width + x + Mask_radius];
            accum += imagePixel * maskValue;
          }
        }
      }
      P[(row * width + col) * channels + k] = clamp(accum);
    }
  }
}

int main(int argc, char *argv[]) {
  int imageChannels = 3;
  int imageWidth = 310;
  int imageHeight = 230;
  float hostMaskData[Mask_width * Mask_width];
  for (int i = 0; i < Mask_width * Mask_width; i++) hostMaskData[i] = 1.0f / 25.0f;

  size_t imgBytes = imageWidth * imageHeight * imageChannels * sizeof(float);
  float *hostInputImageData = (float *)malloc(imgBytes);
  float *hostOutputImageData = (float *)malloc(imgBytes);
  for (int i = 0; i < imageWidth * imageHeight * imageChannels; i++)
    hostInputImageData[i] = (i % 255) / 255.0f;

  float *deviceInputImageData, *deviceOutputImageData;
  cudaMalloc((void **)&deviceInputImageData, imgBytes);
  cudaMalloc((void **)&deviceOutputImageData, imgBytes);
  cudaMemcpy(deviceInputImageData, hostInputImageData, imgBytes, cudaMemcpyHostToDevice);
  cudaMemcpyToSymbol(M, hostMaskData, sizeof(hostMaskData));

  dim3 dimGrid(ceil((float)imageWidth / 16), ceil((float)imageHeight / 16));
  dim3 dimBlock(16, 16, 1);
  convolution_2D_kernel<<<dimGrid, dimBlock>>>(deviceInputImageData, deviceOutputImageData,
                                               imageChannels, imageWidth, imageHeight);

  cudaMemcpy(hostOutputImageData, deviceOutputImageData, imgBytes, cudaMemcpyDeviceToHost);
  printf("%f\n", hostOutputImageData[0]);

  cudaFree(deviceInputImageData);
  cudaFree(deviceOutputImageData);
  free(hostInputImageData);
  free(hostOutputImageData);
  return 0;
}
