// style: grid-stride loop over all M*N outputs, flat index split into (i, j) with / and %; fixed grid of 264 blocks (2 per SM)
// launch: grid 264 block 256
// sizes: M=149 N=181 K=127
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cstdio>
#include <cuda_runtime.h>

__global__ void matmul_grid_stride(const float *A, const float *B, float *C, int M, int N, int K)
{
    for (int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < M * N; idx += blockDim.x * gridDim.x) {
        int i = idx / N;
        int j = idx % N;
        float s = 0.0f;
        for (int k = 0; k < K; ++k)
            s += A[i * K + k] * B[k * N + j];
        C[idx] = s;
    }
}

void matmul(const float *dA, const float *dB, float *dC, int M, int N, int K)
{
    const int threads = 256;
    const int blocks = 264;   // 2 blocks per SM on a 132-SM H100
    matmul_grid_stride<<<blocks, threads>>>(dA, dB, dC, M, N, K);
}

int main()
{
    int M = 149, N = 181, K = 127;
    float *dA, *dB, *dC;
    cudaMalloc(&dA, M * K * sizeof(float));
    cudaMalloc(&dB, K * N * sizeof(float));
    cudaMalloc(&dC, M * N * sizeof(float));
    cudaMemset(dA, 0, M * K * sizeof(float));
    cudaMemset(dB, 0, K * N * sizeof(float));
    matmul(dA, dB, dC, M, N, K);
    printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    return 0;
}
