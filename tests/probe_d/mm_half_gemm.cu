// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=272 N=200 K=144
// expect: matmul-tiles|matmul-wmma
// Naive mixed-precision GEMM: __half A (MxK) and B (KxN), fp32 accumulate and output (tensor-core tutorial baseline)
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

__global__ void gemm_half_naive(const __half* __restrict__ A, const __half* __restrict__ B,
                                float* __restrict__ C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) {
            acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
        }
        C[row * N + col] = acc;
    }
}

int main(int argc, char** argv)
{
    constexpr int M = 272, N = 200, K = 144;
    std::vector<__half> hA(M * K), hB(K * N);
    for (int i = 0; i < M * K; ++i) hA[i] = __float2half((i % 13) / 13.0f);
    for (int i = 0; i < K * N; ++i) hB[i] = __float2half((i % 11) / 11.0f);

    __half *dA, *dB;
    float *dC;
    cudaMalloc(&dA, sizeof(__half) * M * K);
    cudaMalloc(&dB, sizeof(__half) * K * N);
    cudaMalloc(&dC, sizeof(float) * M * N);
    cudaMemcpy(dA, hA.data(), sizeof(__half) * M * K, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB.data(), sizeof(__half) * K * N, cudaMemcpyHostToDevice);

    dim3 block(16, 16);
    dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
    gemm_half_naive<<<grid, block>>>(dA, dB, dC, M, N, K);
    cudaDeviceSynchronize();

    std::vector<float> hC(M * N);
    cudaMemcpy(hC.data(), dC, sizeof(float) * M * N, cudaMemcpyDeviceToHost);
    printf("C[0]=%f C[last]=%f\n", hC[0], hC[M * N - 1]);
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    return 0;
}
