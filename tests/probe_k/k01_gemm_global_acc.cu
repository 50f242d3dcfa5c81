// style: lecture-notes SGEMM with a typedef'd element type and int64_t indices, C scaled by beta then alpha*A*B accumulated straight into global memory inside the k loop (k += 1), host main
// launch: grid cdiv(N, 32), cdiv(M, 4) block 32, 4
// sizes: M=129 N=67 K=45 alpha=1.5 beta=0.25
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cuda_runtime.h>

typedef float real_t;

#define CHECK(call)                                                        \
    do {                                                                   \
        cudaError_t e_ = (call);                                           \
        if (e_ != cudaSuccess) {                                           \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,              \
                    cudaGetErrorString(e_));                               \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

// C(MxN) = alpha * A(MxK) * B(KxN) + beta * C, everything row-major
__global__ void sgemm_inplace(int M, int N, int K, real_t alpha,
                              const real_t *__restrict__ A,
                              const real_t *__restrict__ B, real_t beta,
                              real_t *__restrict__ C)
{
    int64_t col = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t row = (int64_t)blockIdx.y * blockDim.y + threadIdx.y;

    if (row < M && col < N) {
        C[row * N + col] = beta * C[row * N + col];
        for (int k = 0; k < K; k += 1) {
            C[row * N + col] += alpha * A[row * K + k] * B[(int64_t)k * N + col];
        }
    }
}

int main(int argc, char **argv)
{
    const int M = 129, N = 67, K = 45;
    const real_t alpha = 1.5f, beta = 0.25f;

    size_t bytesA = (size_t)M * K * sizeof(real_t);
    size_t bytesB = (size_t)K * N * sizeof(real_t);
    size_t bytesC = (size_t)M * N * sizeof(real_t);
    real_t *hA = (real_t *)malloc(bytesA);
    real_t *hB = (real_t *)malloc(bytesB);
    real_t *hC = (real_t *)malloc(bytesC);
    real_t *ref = (real_t *)malloc(bytesC);
    for (int i = 0; i < M * K; i++) hA[i] = (real_t)(rand() % 100) / 50.0f - 1.0f;
    for (int i = 0; i < K * N; i++) hB[i] = (real_t)(rand() % 100) / 50.0f - 1.0f;
    for (int i = 0; i < M * N; i++) hC[i] = ref[i] = (real_t)(i % 7);

    real_t *dA, *dB, *dC;
    CHECK(cudaMalloc(&dA, bytesA));
    CHECK(cudaMalloc(&dB, bytesB));
    CHECK(cudaMalloc(&dC, bytesC));
    CHECK(cudaMemcpy(dA, hA, bytesA, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, hB, bytesB, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dC, hC, bytesC, cudaMemcpyHostToDevice));

    dim3 block(32, 4);
    dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
    sgemm_inplace<<<grid, block>>>(M, N, K, alpha, dA, dB, beta, dC);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hC, dC, bytesC, cudaMemcpyDeviceToHost));

    double maxerr = 0.0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            real_t s = beta * ref[i * N + j];
            for (int k = 0; k < K; k++) s += alpha * hA[i * K + k] * hB[k * N + j];
            double d = fabs((double)s - (double)hC[i * N + j]);
            if (d > maxerr) maxerr = d;
        }
    printf("max abs err = %g\n", maxerr);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(hA); free(hB); free(hC); free(ref);
    return 0;
}
