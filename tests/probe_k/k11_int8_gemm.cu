// style: quantization tutorial int8 GEMM, "TN" layout (A row-major M x K, B stored as N x K), int8_t operands widened to int, int32_t sums, host main with random int8 data and CPU check
// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M=67 N=129 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cuda_runtime.h>

// C[m][n] = sum_k A[m][k] * Bt[n][k]
__global__ void igemm_s8s8s32(const int8_t *A, const int8_t *Bt, int32_t *C,
                              int M, int N, int K)
{
    int n = blockIdx.x * blockDim.x + threadIdx.x;
    int m = blockIdx.y * blockDim.y + threadIdx.y;
    if (m < M && n < N) {
        const int8_t *a_row = A + m * K;
        const int8_t *b_row = Bt + n * K;
        int32_t acc = 0;
        for (int k = 0; k < K; k++) {
            acc += static_cast<int32_t>(a_row[k]) * static_cast<int32_t>(b_row[k]);
        }
        C[m * N + n] = acc;
    }
}

int main()
{
    const int M = 67, N = 129, K = 45;
    int8_t *hA = (int8_t *)malloc(M * K);
    int8_t *hB = (int8_t *)malloc(N * K);
    int32_t *hC = (int32_t *)malloc(M * N * sizeof(int32_t));
    srand(1234);
    for (int i = 0; i < M * K; i++) hA[i] = (int8_t)(rand() % 255 - 127);
    for (int i = 0; i < N * K; i++) hB[i] = (int8_t)(rand() % 255 - 127);

    int8_t *dA, *dB;
    int32_t *dC;
    cudaMalloc((void **)&dA, M * K);
    cudaMalloc((void **)&dB, N * K);
    cudaMalloc((void **)&dC, M * N * sizeof(int32_t));
    cudaMemcpy(dA, hA, M * K, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, N * K, cudaMemcpyHostToDevice);

    dim3 threads(32, 8);
    dim3 blocks((N + 31) / 32, (M + 7) / 8);
    igemm_s8s8s32<<<blocks, threads>>>(dA, dB, dC, M, N, K);
    cudaMemcpy(hC, dC, M * N * sizeof(int32_t), cudaMemcpyDeviceToHost);

    int errors = 0;
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            int32_t ref = 0;
            for (int k = 0; k < K; k++) ref += (int32_t)hA[m * K + k] * (int32_t)hB[n * K + k];
            if (ref != hC[m * N + n]) errors++;
        }
    printf("int8 gemm: %d errors\n", errors);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(hA); free(hB); free(hC);
    return 0;
}
