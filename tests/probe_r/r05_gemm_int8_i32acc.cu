// style: quantized-inference repo "int8 GEMM reference kernel"; int8_t operands widened with static_cast<int32_t> into an int32_t accumulator, output int32_t, host main with cudaMalloc/cudaMemcpy
// launch: grid cdiv(N, 32), cdiv(M, 4) block 32, 4
// sizes: M=61 N=99 K=83
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>

__global__ void gemm_s8s8s32(const int8_t *A, const int8_t *B, int32_t *C, int M, int N, int K)
{
    const int m = blockIdx.y * blockDim.y + threadIdx.y;
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (m < M && n < N) {
        int32_t acc = 0;
        for (int k = 0; k < K; ++k) {
            acc += static_cast<int32_t>(A[m * K + k]) * static_cast<int32_t>(B[k * N + n]);
        }
        C[m * N + n] = acc;
    }
}

int main()
{
    const int M = 61, N = 99, K = 83;
    std::vector<int8_t> hA(M * K), hB(K * N);
    std::vector<int32_t> hC(M * N);
    for (int i = 0; i < M * K; ++i) hA[i] = static_cast<int8_t>((i * 37) % 255 - 127);
    for (int i = 0; i < K * N; ++i) hB[i] = static_cast<int8_t>((i * 11) % 255 - 127);

    int8_t *dA, *dB;
    int32_t *dC;
    cudaMalloc(&dA, hA.size());
    cudaMalloc(&dB, hB.size());
    cudaMalloc(&dC, hC.size() * sizeof(int32_t));
    cudaMemcpy(dA, hA.data(), hA.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB.data(), hB.size(), cudaMemcpyHostToDevice);

    dim3 block(32, 4);
    dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
    gemm_s8s8s32<<<grid, block>>>(dA, dB, dC, M, N, K);
    cudaMemcpy(hC.data(), dC, hC.size() * sizeof(int32_t), cudaMemcpyDeviceToHost);
    printf("C[0]=%d\n", hC[0]);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    return 0;
}
