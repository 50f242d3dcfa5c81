// style: BLAS-like sgemm wrapper in a small ML framework; alpha/beta passed as by-value floats, epilogue written as C[row*N+col] = alpha*sum + beta*C[row*N+col] (read-modify-write of C), CUDA_CALL error macro, host launcher function sgemm_naive() called from main
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=67 N=93 K=45 alpha=1.5 beta=0.75
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CALL(x)                                                   \
    do {                                                               \
        cudaError_t e = (x);                                           \
        if (e != cudaSuccess) {                                        \
            printf("%s failed: %s\n", #x, cudaGetErrorString(e));     \
            std::exit(EXIT_FAILURE);                                   \
        }                                                              \
    } while (0)

__global__ void sgemm_alpha_beta(int M, int N, int K, float alpha,
                                 const float *A, const float *B,
                                 float beta, float *C)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int i = 0; i < K; ++i)
            sum += A[row * K + i] * B[i * N + col];
        C[row * N + col] = alpha * sum + beta * C[row * N + col];
    }
}

void sgemm_naive(int M, int N, int K, float alpha, const float *dA,
                 const float *dB, float beta, float *dC)
{
    dim3 block(16, 16);
    dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
    sgemm_alpha_beta<<<grid, block>>>(M, N, K, alpha, dA, dB, beta, dC);
    CUDA_CALL(cudaGetLastError());
}

int main()
{
    const int M = 67, N = 93, K = 45;
    const float alpha = 1.5f, beta = 0.75f;
    std::vector<float> A(M * K), B(K * N), C(M * N, 2.0f);
    for (int i = 0; i < M * K; ++i) A[i] = 0.5f * (i % 9) - 2.0f;
    for (int i = 0; i < K * N; ++i) B[i] = 0.25f * (i % 4);

    float *dA, *dB, *dC;
    CUDA_CALL(cudaMalloc(&dA, sizeof(float) * M * K));
    CUDA_CALL(cudaMalloc(&dB, sizeof(float) * K * N));
    CUDA_CALL(cudaMalloc(&dC, sizeof(float) * M * N));
    CUDA_CALL(cudaMemcpy(dA, A.data(), sizeof(float) * M * K, cudaMemcpyHostToDevice));
    CUDA_CALL(cudaMemcpy(dB, B.data(), sizeof(float) * K * N, cudaMemcpyHostToDevice));
    CUDA_CALL(cudaMemcpy(dC, C.data(), sizeof(float) * M * N, cudaMemcpyHostToDevice));

    sgemm_naive(M, N, K, alpha, dA, dB, beta, dC);
    CUDA_CALL(cudaDeviceSynchronize());
    CUDA_CALL(cudaMemcpy(C.data(), dC, sizeof(float) * M * N, cudaMemcpyDeviceToHost));
    printf("C[0]=%f C[M*N-1]=%f\n", C[0], C[M * N - 1]);

    CUDA_CALL(cudaFree(dA));
    CUDA_CALL(cudaFree(dB));
    CUDA_CALL(cudaFree(dC));
    return 0;
}
