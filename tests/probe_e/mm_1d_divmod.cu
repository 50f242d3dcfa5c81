// style: beginner 1-D launch matmul (one thread per output, row = idx / N, col = idx % N), with host main
// launch: grid cdiv(M * N, 256) block 256
// sizes: M=157 N=203 K=119
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <iostream>
#include <vector>
#include <cuda_runtime.h>

#define THREADS 256

__global__ void matmul1d(const float* A, const float* B, float* C, int M, int N, int K)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < M * N) {
        int row = idx / N;
        int col = idx % N;
        float sum = 0.0f;
        for (int k = 0; k < K; ++k)
            sum += A[row * K + k] * B[k * N + col];
        C[idx] = sum;
    }
}

int main()
{
    const int M = 157, N = 203, K = 119;
    std::vector<float> A(M * K, 1.0f), B(K * N, 0.5f), C(M * N);
    float *dA, *dB, *dC;
    cudaMalloc(&dA, A.size() * sizeof(float));
    cudaMalloc(&dB, B.size() * sizeof(float));
    cudaMalloc(&dC, C.size() * sizeof(float));
    cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice);
    int blocks = (M * N + THREADS - 1) / THREADS;
    matmul1d<<<blocks, THREADS>>>(dA, dB, dC, M, N, K);
    cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost);
    std::cout << "C[0] = " << C[0] << std::endl;
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    return 0;
}
