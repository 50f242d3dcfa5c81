// style: course homework "GEMM with alpha/beta" where the student scales C by beta in place and then does C[row*N+col] += alpha*A*B directly in global memory on every k iteration (no register accumulator), host main with cudaMalloc/cudaMemcpy and a CPU check
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=67 N=93 K=45 alpha=1.5 beta=0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define BLOCK 16

// C = alpha * A * B + beta * C
// A is M x K, B is K x N, C is M x N, all row-major
__global__ void gemm_alpha_beta(int M, int N, int K, float alpha, float beta,
                                const float *A, const float *B, float *C)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;

    if (row < M && col < N) {
        C[row * N + col] *= beta;
        for (int k = 0; k < K; k++) {
            C[row * N + col] += alpha * A[row * K + k] * B[k * N + col];
        }
    }
}

int main(int argc, char **argv)
{
    int M = 67, N = 93, K = 45;
    float alpha = 1.5f, beta = 0.5f;

    size_t sizeA = (size_t)M * K * sizeof(float);
    size_t sizeB = (size_t)K * N * sizeof(float);
    size_t sizeC = (size_t)M * N * sizeof(float);

    float *h_A = (float *)malloc(sizeA);
    float *h_B = (float *)malloc(sizeB);
    float *h_C = (float *)malloc(sizeC);
    float *h_ref = (float *)malloc(sizeC);

    for (int i = 0; i < M * K; i++) h_A[i] = (float)(rand() % 10) / 10.0f;
    for (int i = 0; i < K * N; i++) h_B[i] = (float)(rand() % 10) / 10.0f;
    for (int i = 0; i < M * N; i++) h_C[i] = h_ref[i] = (float)(rand() % 10) / 10.0f;

    float *d_A, *d_B, *d_C;
    cudaMalloc((void **)&d_A, sizeA);
    cudaMalloc((void **)&d_B, sizeB);
    cudaMalloc((void **)&d_C, sizeC);

    cudaMemcpy(d_A, h_A, sizeA, cudaMemcpyHostToDevice);
    cudaMemcpy(d_B, h_B, sizeB, cudaMemcpyHostToDevice);
    cudaMemcpy(d_C, h_C, sizeC, cudaMemcpyHostToDevice);

    dim3 dimBlock(BLOCK, BLOCK);
    dim3 dimGrid((N + BLOCK - 1) / BLOCK, (M + BLOCK - 1) / BLOCK);
    gemm_alpha_beta<<<dimGrid, dimBlock>>>(M, N, K, alpha, beta, d_A, d_B, d_C);
    cudaDeviceSynchronize();

    cudaMemcpy(h_C, d_C, sizeC, cudaMemcpyDeviceToHost);

    // CPU reference
    int errors = 0;
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N; j++) {
            float s = 0.0f;
            for (int k = 0; k < K; k++) s += h_A[i * K + k] * h_B[k * N + j];
            h_ref[i * N + j] = alpha * s + beta * h_ref[i * N + j];
            if (fabsf(h_ref[i * N + j] - h_C[i * N + j]) > 1e-3f) errors++;
        }
    }
    printf("%s (%d errors)\n", errors ? "FAILED" : "PASSED", errors);

    cudaFree(d_A); cudaFree(d_B); cudaFree(d_C);
    free(h_A); free(h_B); free(h_C); free(h_ref);
    return 0;
}
