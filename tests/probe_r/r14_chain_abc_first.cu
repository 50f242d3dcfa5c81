// style: Kaggle notebook "D = A @ B @ C with two CUDA kernels"; product chain split into one naive kernel per product (T = A.B, then D = T.C), K/P/N names for the inner dims, host main launches both; only the first kernel is under test
// launch: grid cdiv(P, 16), cdiv(M, 16) block 16, 16
// sizes: M=57 K=43 P=75
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

// T (M x P) = A (M x K) . B (K x P)
__global__ void chain_mm1(const float *A, const float *B, float *T, int M, int K, int P)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < M && j < P) {
        float s = 0.0f;
        for (int k = 0; k < K; k++)
            s += A[i * K + k] * B[k * P + j];
        T[i * P + j] = s;
    }
}

// D (M x N) = T (M x P) . C (P x N)
__global__ void chain_mm2(const float *T, const float *C, float *D, int M, int P, int N)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < M && j < N) {
        float s = 0.0f;
        for (int p = 0; p < P; p++)
            s += T[i * P + p] * C[p * N + j];
        D[i * N + j] = s;
    }
}

int main()
{
    const int M = 57, K = 43, P = 75, N = 29;
    std::vector<float> A(M * K, 0.5f), B(K * P, 0.25f), C(P * N, 2.0f), D(M * N);
    float *dA, *dB, *dC, *dT, *dD;
    cudaMalloc(&dA, A.size() * sizeof(float));
    cudaMalloc(&dB, B.size() * sizeof(float));
    cudaMalloc(&dC, C.size() * sizeof(float));
    cudaMalloc(&dT, (size_t)M * P * sizeof(float));
    cudaMalloc(&dD, D.size() * sizeof(float));
    cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dC, C.data(), C.size() * sizeof(float), cudaMemcpyHostToDevice);

    dim3 blk(16, 16);
    dim3 g1((P + 15) / 16, (M + 15) / 16);
    chain_mm1<<<g1, blk>>>(dA, dB, dT, M, K, P);
    dim3 g2((N + 15) / 16, (M + 15) / 16);
    chain_mm2<<<g2, blk>>>(dT, dC, dD, M, P, N);
    cudaMemcpy(D.data(), dD, D.size() * sizeof(float), cudaMemcpyDeviceToHost);
    printf("D[0] = %f\n", D[0]);

    cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dT); cudaFree(dD);
    return 0;
}
