// style: C++ research-codebase GEMM taking a by-value struct Dims { int M, N, K; } parameter; sizes read as d.M/d.N/d.K, dim3 launch built from the struct in a host main with cudaMalloc/cudaMemcpy
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=69 N=91 K=37
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

struct Dims { int M, N, K; };

__global__ void gemm_dims(const float *A, const float *B, float *C, Dims d)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < d.M && col < d.N) {
        float acc = 0.0f;
        for (int k = 0; k < d.K; ++k)
            acc += A[row * d.K + k] * B[k * d.N + col];
        C[row * d.N + col] = acc;
    }
}

int main()
{
    Dims d{69, 91, 37};
    std::vector<float> A(d.M * d.K, 1.0f), B(d.K * d.N, 0.5f), C(d.M * d.N);
    float *dA, *dB, *dC;
    cudaMalloc(&dA, A.size() * sizeof(float));
    cudaMalloc(&dB, B.size() * sizeof(float));
    cudaMalloc(&dC, C.size() * sizeof(float));
    cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice);

    dim3 block(16, 16);
    dim3 grid((d.N + 15) / 16, (d.M + 15) / 16);
    gemm_dims<<<grid, block>>>(dA, dB, dC, d);
    cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost);
    printf("C[0] = %f (expect %f)\n", C[0], 0.5f * d.K);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    return 0;
}
