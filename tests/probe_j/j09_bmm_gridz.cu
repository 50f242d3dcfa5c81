// style: cuBLAS-strided-batched imitation, batch on blockIdx.z with explicit element strides, host main with cudaEvent timing
// launch: grid cdiv(N, 16), cdiv(M, 16), batch block 16, 16
// sizes: M=187 N=141 K=223 batch=2 strideA=41701 strideB=31443 strideC=26367
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cstdio>
#include <cuda_runtime.h>

__global__ void bmm_strided(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                            int M, int N, int K, int batch,
                            int strideA, int strideB, int strideC) {
  const int b = blockIdx.z;
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  const int m = blockIdx.y * blockDim.y + threadIdx.y;
  if (b >= batch || m >= M || n >= N) return;
  const float* a = A + (size_t)b * strideA;
  const float* bb = B + (size_t)b * strideB;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc = fmaf(a[m * K + k], bb[k * N + n], acc);
  C[(size_t)b * strideC + m * N + n] = acc;
}

int main() {
  const int M = 187, N = 141, K = 223, batch = 2;
  const int sA = M * K, sB = K * N, sC = M * N;
  float *A, *B, *C;
  cudaMalloc(&A, sizeof(float) * sA * batch);
  cudaMalloc(&B, sizeof(float) * sB * batch);
  cudaMalloc(&C, sizeof(float) * sC * batch);
  cudaMemset(A, 0, sizeof(float) * sA * batch);
  cudaMemset(B, 0, sizeof(float) * sB * batch);
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  dim3 block(16, 16);
  dim3 grid((N + 15) / 16, (M + 15) / 16, batch);
  cudaEventRecord(t0);
  bmm_strided<<<grid, block>>>(A, B, C, M, N, K, batch, sA, sB, sC);
  cudaEventRecord(t1);
  cudaEventSynchronize(t1);
  float ms = 0.f;
  cudaEventElapsedTime(&ms, t0, t1);
  printf("bmm: %.3f ms\n", ms);
  cudaFree(A); cudaFree(B); cudaFree(C);
  return 0;
}
