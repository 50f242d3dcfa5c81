// style: cuda-samples matrixMul (template <int BLOCK_SIZE>, As/Bs tiles, wA/wB) adapted with bounds for any size
// launch: grid cdiv(wB, 16), cdiv(hA, 16) block 16, 16
// sizes: hA=211 wA=183 wB=149
// template: 16
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cstdio>
#include <cuda_runtime.h>

template <int BLOCK_SIZE>
__global__ void MatrixMulCUDA(float *C, float *A, float *B, int hA, int wA, int wB) {
  // Block index
  int bx = blockIdx.x;
  int by = blockIdx.y;
  // Thread index
  int tx = threadIdx.x;
  int ty = threadIdx.y;

  int row = by * BLOCK_SIZE + ty;
  int col = bx * BLOCK_SIZE + tx;

  // Csub is used to store the element of the block sub-matrix
  // that is computed by the thread
  float Csub = 0;

  // Loop over all the sub-matrices of A and B
  for (int t = 0; t < (wA + BLOCK_SIZE - 1) / BLOCK_SIZE; ++t) {
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];

    int aCol = t * BLOCK_SIZE + tx;
    int bRow = t * BLOCK_SIZE + ty;
    As[ty][tx] = (row < hA && aCol < wA) ? A[row * wA + aCol] : 0.0f;
    Bs[ty][tx] = (bRow < wA && col < wB) ? B[bRow * wB + col] : 0.0f;

    // Synchronize to make sure the matrices are loaded
    __syncthreads();

#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) {
      Csub += As[ty][k] * Bs[k][tx];
    }

    // Synchronize to make sure that the preceding
    // computation is done before loading two new
    // sub-matrices of A and B in the next iteration
    __syncthreads();
  }

  // Write the block sub-matrix to device memory;
  // each thread writes one element
  if (row < hA && col < wB) C[row * wB + col] = Csub;
}

void MatrixMultiply(float *d_C, float *d_A, float *d_B, int hA, int wA, int wB) {
  const int block_size = 16;
  dim3 threads(block_size, block_size);
  dim3 grid((wB + block_size - 1) / block_size, (hA + block_size - 1) / block_size);
  MatrixMulCUDA<block_size><<<grid, threads>>>(d_C, d_A, d_B, hA, wA, wB);
  cudaDeviceSynchronize();
}
