// style: tiled SGEMM with the tile width taken from blockDim.x at run time and one extern __shared__ float smem[] split into As / Bs by pointer arithmetic
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16 shared 2048
// sizes: M=187 N=141 K=223 alpha=1.5 beta=0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

// Requires a square block (blockDim.x == blockDim.y == TS) and
// 2 * TS * TS * sizeof(float) bytes of dynamic shared memory.
__global__ void sgemm_dyn_smem(int M, int N, int K, float alpha,
                               const float *A, const float *B,
                               float beta, float *C)
{
    extern __shared__ float smem[];
    const int TS = blockDim.x;
    float *As = smem;              // TS x TS, As[r * TS + k]
    float *Bs = smem + TS * TS;    // TS x TS, Bs[k * TS + c]

    const int r = threadIdx.y, c = threadIdx.x;
    const int row = blockIdx.y * TS + r;
    const int col = blockIdx.x * TS + c;

    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        As[r * TS + c] = (row < M && k0 + c < K) ? A[row * K + k0 + c] : 0.0f;
        Bs[r * TS + c] = (k0 + r < K && col < N) ? B[(k0 + r) * N + col] : 0.0f;
        __syncthreads();
        for (int kk = 0; kk < TS; ++kk)
            acc += As[r * TS + kk] * Bs[kk * TS + c];
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = alpha * acc + beta * C[row * N + col];
}

int main()
{
    const int M = 187, N = 141, K = 223, TS = 16;
    const float alpha = 1.5f, beta = 0.5f;
    float *A = (float *)malloc(sizeof(float) * M * K);
    float *B = (float *)malloc(sizeof(float) * K * N);
    float *C = (float *)malloc(sizeof(float) * M * N);
    for (int i = 0; i < M * K; ++i) A[i] = (float)((i % 13) - 6) * 0.1f;
    for (int i = 0; i < K * N; ++i) B[i] = (float)((i % 7) - 3) * 0.2f;
    for (int i = 0; i < M * N; ++i) C[i] = 2.0f;

    float *dA, *dB, *dC;
    cudaMalloc(&dA, sizeof(float) * M * K);
    cudaMalloc(&dB, sizeof(float) * K * N);
    cudaMalloc(&dC, sizeof(float) * M * N);
    cudaMemcpy(dA, A, sizeof(float) * M * K, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B, sizeof(float) * K * N, cudaMemcpyHostToDevice);
    cudaMemcpy(dC, C, sizeof(float) * M * N, cudaMemcpyHostToDevice);

    dim3 block(TS, TS);
    dim3 grid((N + TS - 1) / TS, (M + TS - 1) / TS);
    size_t shmem = 2 * TS * TS * sizeof(float);
    sgemm_dyn_smem<<<grid, block, shmem>>>(M, N, K, alpha, dA, dB, beta, dC);
    cudaMemcpy(C, dC, sizeof(float) * M * N, cudaMemcpyDeviceToHost);

    float ref = 0.0f;
    for (int k = 0; k < K; ++k) ref += A[50 * K + k] * B[k * N + 60];
    printf("C[50][60] = %f ref %f\n", C[50 * N + 60], alpha * ref + beta * 2.0f);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(A); free(B); free(C);
    return 0;
}
