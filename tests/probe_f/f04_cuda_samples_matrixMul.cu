// style: NVIDIA cuda-samples matrixMul (MatrixMulCUDA<BLOCK_SIZE>, aBegin/aEnd/aStep), user adaptation with hA and edge guards
// launch: grid cdiv(wB, 32), cdiv(hA, 32) block 32, 32
// sizes: hA=150 wA=213 wB=181
// template: 32
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

/**
 * Matrix multiplication (CUDA Kernel) on the device: C = A * B
 * wA is A's width and wB is B's width
 */
template <int BLOCK_SIZE>
__global__ void MatrixMulCUDA(float *C, float *A, float *B, int hA, int wA, int wB) {
  // Block index
  int bx = blockIdx.x;
  int by = blockIdx.y;

  // Thread index
  int tx = threadIdx.x;
  int ty = threadIdx.y;

  // Index of the first sub-matrix of A processed by the block
  int aBegin = wA * BLOCK_SIZE * by;
  // Index of the last sub-matrix of A processed by the block
  int aEnd = aBegin + wA - 1;
  // Step size used to iterate through the sub-matrices of A
  int aStep = BLOCK_SIZE;
  // Index of the first sub-matrix of B processed by the block
  int bBegin = BLOCK_SIZE * bx;
  // Step size used to iterate through the sub-matrices of B
  int bStep = BLOCK_SIZE * wB;

  int row = by * BLOCK_SIZE + ty;
  int col = bx * BLOCK_SIZE + tx;

  // Csub is used to store the element of the block sub-matrix
  // that is computed by the thread
  float Csub = 0;

  // Loop over all the sub-matrices of A and B
  for (int a = aBegin, b = bBegin, k0 = 0; a <= aEnd;
       a += aStep, b += bStep, k0 += BLOCK_SIZE) {
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];

    // Load the matrices from device memory to shared memory;
    // each thread loads one element of each matrix
    As[ty][tx] = (row < hA && k0 + tx < wA) ? A[a + wA * ty + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < wA && col < wB) ? B[b + wB * ty + tx] : 0.0f;

    // Synchronize to make sure the matrices are loaded
    __syncthreads();

#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) {
      Csub += As[ty][k] * Bs[k][tx];
    }

    __syncthreads();
  }

  // Write the block sub-matrix to device memory;
  // each thread writes one element
  int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
  if (row < hA && col < wB) C[c + wB * ty + tx] = Csub;
}

void ConstantInit(float *data, int size, float val) {
  for (int i = 0; i < size; ++i) data[i] = val;
}

int MatrixMultiply(int block_size, const dim3 &dimsA, const dim3 &dimsB) {
  unsigned int size_A = dimsA.x * dimsA.y;
  unsigned int mem_size_A = sizeof(float) * size_A;
  float *h_A = (float *)malloc(mem_size_A);
  unsigned int size_B = dimsB.x * dimsB.y;
  unsigned int mem_size_B = sizeof(float) * size_B;
  float *h_B = (float *)malloc(mem_size_B);
  ConstantInit(h_A, size_A, 1.0f);
  ConstantInit(h_B, size_B, 0.01f);

  float *d_A, *d_B, *d_C;
  dim3 dimsC(dimsB.x, dimsA.y, 1);
  unsigned int mem_size_C = dimsC.x * dimsC.y * sizeof(float);
  float *h_C = (float *)malloc(mem_size_C);
  cudaMalloc(reinterpret_cast<void **>(&d_A), mem_size_A);
  cudaMalloc(reinterpret_cast<void **>(&d_B), mem_size_B);
  cudaMalloc(reinterpret_cast<void **>(&d_C), mem_size_C);
  cudaMemcpy(d_A, h_A, mem_size_A, cudaMemcpyHostToDevice);
  cudaMemcpy(d_B, h_B, mem_size_B, cudaMemcpyHostToDevice);

  // Setup execution parameters
  dim3 threads(block_size, block_size);
  dim3 grid((dimsB.x + threads.x - 1) / threads.x, (dimsA.y + threads.y - 1) / threads.y);
  MatrixMulCUDA<32><<<grid, threads>>>(d_C, d_A, d_B, dimsA.y, dimsA.x, dimsB.x);
  cudaDeviceSynchronize();
  cudaMemcpy(h_C, d_C, mem_size_C, cudaMemcpyDeviceToHost);
  printf("C[0]=%f (expected %f)\n", h_C[0], dimsA.x * 0.01f);
  free(h_A); free(h_B); free(h_C);
  cudaFree(d_A); cudaFree(d_B); cudaFree(d_C);
  return 0;
}

int main(int argc, char **argv) {
  int block_size = 32;
  dim3 dimsA(213, 150, 1);  // wA x hA
  dim3 dimsB(181, 213, 1);  // wB x hB (hB == wA)
  return MatrixMultiply(block_size, dimsA, dimsB);
}
