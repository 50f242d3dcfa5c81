// style: course homework "one thread per output element" -- 1-D grid of long indices, row = idx / N and col = idx % N, host main
// launch: grid cdiv(M * N, 128) block 128
// sizes: M=67 N=129 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <iostream>
#include <vector>
#include <cuda_runtime.h>

__global__ void matMul1D(const float *A, const float *B, float *out, long M, long N, long K)
{
    long idx = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= M * N)
        return;
    long row = idx / N;
    long col = idx % N;

    float s = 0;
    for (long e = 0; e < K; e++)
        s += A[row * K + e] * B[e * N + col];
    out[row * N + col] = s;
}

int main()
{
    const long M = 67, N = 129, K = 45;
    std::vector<float> hA(M * K, 1.0f), hB(K * N, 2.0f), hC(M * N);
    float *dA, *dB, *dC;
    cudaMalloc(&dA, hA.size() * sizeof(float));
    cudaMalloc(&dB, hB.size() * sizeof(float));
    cudaMalloc(&dC, hC.size() * sizeof(float));
    cudaMemcpy(dA, hA.data(), hA.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB.data(), hB.size() * sizeof(float), cudaMemcpyHostToDevice);

    int threads = 128;
    int blocks = (int)((M * N + threads - 1) / threads);
    matMul1D<<<blocks, threads>>>(dA, dB, dC, M, N, K);
    cudaMemcpy(hC.data(), dC, hC.size() * sizeof(float), cudaMemcpyDeviceToHost);
    std::cout << "out[0] = " << hC[0] << " (expect " << 2.0f * K << ")" << std::endl;

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    return 0;
}
