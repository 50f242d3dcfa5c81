// style: signal-processing / quantum-simulation code with hand-rolled complex numbers; float2 operands (.x = re, .y = im), complex multiply-accumulate written out as four real products into cre/cim, row-major M x K times K x N, host main with cudaMalloc/cudaMemcpy of float2 arrays
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=67 N=93 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

// C = A * B for complex matrices stored as interleaved (re, im) float2
__global__ void cgemm_naive(const float2 *A, const float2 *B, float2 *C,
                            int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float cre = 0.0f, cim = 0.0f;
        for (int k = 0; k < K; ++k) {
            float2 a = A[row * K + k];
            float2 b = B[k * N + col];
            cre += a.x * b.x - a.y * b.y;
            cim += a.x * b.y + a.y * b.x;
        }
        C[row * N + col] = make_float2(cre, cim);
    }
}

int main()
{
    const int M = 67, N = 93, K = 45;
    float2 *hA = (float2 *)malloc(M * K * sizeof(float2));
    float2 *hB = (float2 *)malloc(K * N * sizeof(float2));
    float2 *hC = (float2 *)malloc(M * N * sizeof(float2));
    for (int i = 0; i < M * K; ++i) hA[i] = make_float2(0.1f * (i % 5), -0.05f * (i % 3));
    for (int i = 0; i < K * N; ++i) hB[i] = make_float2(0.2f * (i % 4), 0.1f * (i % 6));

    float2 *dA, *dB, *dC;
    cudaMalloc((void **)&dA, M * K * sizeof(float2));
    cudaMalloc((void **)&dB, K * N * sizeof(float2));
    cudaMalloc((void **)&dC, M * N * sizeof(float2));
    cudaMemcpy(dA, hA, M * K * sizeof(float2), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, K * N * sizeof(float2), cudaMemcpyHostToDevice);

    dim3 block(16, 16);
    dim3 grid((N + 15) / 16, (M + 15) / 16);
    cgemm_naive<<<grid, block>>>(dA, dB, dC, M, N, K);
    cudaMemcpy(hC, dC, M * N * sizeof(float2), cudaMemcpyDeviceToHost);

    printf("C[0] = (%f, %f)\n", hC[0].x, hC[0].y);
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(hA); free(hB); free(hC);
    return 0;
}
