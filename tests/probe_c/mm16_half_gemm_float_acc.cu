// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=512 N=768 K=320 alpha=1.0 beta=0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// half-precision inputs with float accumulation and float output, C = alpha*A*B + beta*C (mixed-precision reference GEMM used to check tensor-core kernels)
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <cuda_fp16.h>

__global__ void gemm_half_ref(const __half *A, const __half *B, float *C,
                              int M, int N, int K, float alpha, float beta)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < M && j < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) {
            acc += __half2float(A[i * K + k]) * __half2float(B[k * N + j]);
        }
        C[i * N + j] = alpha * acc + beta * C[i * N + j];
    }
}

int main()
{
    const int M = 512, N = 768, K = 320;
    const float alpha = 1.0f, beta = 0.5f;

    std::vector<__half> hA(M * K), hB(K * N);
    std::vector<float> hC(M * N, 1.0f);
    for (int i = 0; i < M * K; ++i) hA[i] = __float2half((rand() % 100) / 100.0f);
    for (int i = 0; i < K * N; ++i) hB[i] = __float2half((rand() % 100) / 100.0f);

    __half *dA, *dB;
    float *dC;
    cudaMalloc(&dA, M * K * sizeof(__half));
    cudaMalloc(&dB, K * N * sizeof(__half));
    cudaMalloc(&dC, M * N * sizeof(float));
    cudaMemcpy(dA, hA.data(), M * K * sizeof(__half), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB.data(), K * N * sizeof(__half), cudaMemcpyHostToDevice);
    cudaMemcpy(dC, hC.data(), M * N * sizeof(float), cudaMemcpyHostToDevice);

    dim3 block(16, 16);
    dim3 grid((N + 15) / 16, (M + 15) / 16);
    gemm_half_ref<<<grid, block>>>(dA, dB, dC, M, N, K, alpha, beta);
    cudaDeviceSynchronize();

    cudaMemcpy(hC.data(), dC, M * N * sizeof(float), cudaMemcpyDeviceToHost);
    printf("C[0][0] = %f\n", hC[0]);

    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    return 0;
}
