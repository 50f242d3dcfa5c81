// style: siboehm SGEMM kernel 1 (naive); x = row index from threadIdx.x, y = column
// launch: grid cdiv(M, 32), cdiv(N, 32) block 32, 32
// sizes: M=187 N=141 K=223 alpha=1.5 beta=0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce|matmul-library
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))

__global__ void sgemm_naive(int M, int N, int K, float alpha, const float *A,
                            const float *B, float beta, float *C) {
  const uint x = blockIdx.x * blockDim.x + threadIdx.x;
  const uint y = blockIdx.y * blockDim.y + threadIdx.y;

  // if statement is necessary to make things work under tile quantization
  if (x < M && y < N) {
    float tmp = 0.0;
    for (int i = 0; i < K; ++i) {
      tmp += A[x * K + i] * B[i * N + y];
    }
    // C = alpha*(A@B)+beta*C
    C[x * N + y] = alpha * tmp + beta * C[x * N + y];
  }
}

void run_sgemm_naive(int M, int N, int K, float alpha, float *A, float *B,
                     float beta, float *C) {
  dim3 gridDim(CEIL_DIV(M, 32), CEIL_DIV(N, 32));
  dim3 blockDim(32, 32);
  sgemm_naive<<<gridDim, blockDim>>>(M, N, K, alpha, A, B, beta, C);
}

int main() {
  int M = 187, N = 141, K = 223;
  float alpha = 1.5f, beta = 0.5f;
  size_t sA = sizeof(float) * M * K, sB = sizeof(float) * K * N, sC = sizeof(float) * M * N;
  float *A = (float *)malloc(sA), *B = (float *)malloc(sB), *C = (float *)malloc(sC);
  for (int i = 0; i < M * K; i++) A[i] = (float)(rand() % 5) - 2.0f;
  for (int i = 0; i < K * N; i++) B[i] = (float)(rand() % 5) - 2.0f;
  for (int i = 0; i < M * N; i++) C[i] = 1.0f;
  float *dA, *dB, *dC;
  cudaMalloc((void **)&dA, sA);
  cudaMalloc((void **)&dB, sB);
  cudaMalloc((void **)&dC, sC);
  cudaMemcpy(dA, A, sA, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B, sB, cudaMemcpyHostToDevice);
  cudaMemcpy(dC, C, sC, cudaMemcpyHostToDevice);
  run_sgemm_naive(M, N, K, alpha, dA, dB, beta, dC);
  cudaDeviceSynchronize();
  cudaMemcpy(C, dC, sC, cudaMemcpyDeviceToHost);
  printf("C[0] = %f\n", C[0]);
  cudaFree(dA); cudaFree(dB); cudaFree(dC);
  free(A); free(B); free(C);
  return 0;
}
