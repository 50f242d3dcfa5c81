// style: reproducibility-minded scientific code: single-precision GEMM whose k loop is a Kahan (compensated) summation (y = prod - comp; t = sum + y; comp = (t - sum) - y; sum = t), products formed with __fmul_rn so they are not contracted into FMAs, row-major with explicit lda/ldb/ldc larger than the sizes, C = alpha*A*B, column on threadIdx.x; host main comparing the plain and the compensated error against a double reference
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=53 N=45 K=91 lda=93 ldb=48 ldc=47 alpha=1.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define gpuErrchk(ans) { gpuAssert((ans), __FILE__, __LINE__); }
inline void gpuAssert(cudaError_t code, const char *file, int line)
{
    if (code != cudaSuccess) {
        fprintf(stderr, "GPUassert: %s %s %d\n", cudaGetErrorString(code), file, line);
        exit(code);
    }
}

/* C(MxN) = alpha * A(MxK) * B(KxN), row-major with leading dimensions */
__global__ void sgemm_kahan(int M, int N, int K, float alpha,
                            const float *A, int lda,
                            const float *B, int ldb,
                            float *C, int ldc)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float sum = 0.0f;
        float comp = 0.0f;              /* running compensation for lost low-order bits */
        for (int k = 0; k < K; ++k) {
            float y = __fsub_rn(__fmul_rn(A[row * lda + k], B[k * ldb + col]), comp);
            float t = __fadd_rn(sum, y);
            comp = __fsub_rn(__fsub_rn(t, sum), y);
            sum = t;
        }
        C[row * ldc + col] = alpha * sum;
    }
}

int main(void)
{
    const int M = 53, N = 45, K = 91, lda = 93, ldb = 48, ldc = 47;
    const float alpha = 1.5f;
    float *hA = (float *)calloc((size_t)M * lda, sizeof(float));
    float *hB = (float *)calloc((size_t)K * ldb, sizeof(float));
    float *hC = (float *)calloc((size_t)M * ldc, sizeof(float));
    srand(7);
    for (int i = 0; i < M; i++) for (int k = 0; k < K; k++) hA[i * lda + k] = (float)rand() / RAND_MAX * 2.0f - 1.0f;
    for (int k = 0; k < K; k++) for (int j = 0; j < N; j++) hB[k * ldb + j] = (float)rand() / RAND_MAX * 2.0f - 1.0f;

    float *dA, *dB, *dC;
    gpuErrchk(cudaMalloc(&dA, (size_t)M * lda * sizeof(float)));
    gpuErrchk(cudaMalloc(&dB, (size_t)K * ldb * sizeof(float)));
    gpuErrchk(cudaMalloc(&dC, (size_t)M * ldc * sizeof(float)));
    gpuErrchk(cudaMemcpy(dA, hA, (size_t)M * lda * sizeof(float), cudaMemcpyHostToDevice));
    gpuErrchk(cudaMemcpy(dB, hB, (size_t)K * ldb * sizeof(float), cudaMemcpyHostToDevice));
    gpuErrchk(cudaMemset(dC, 0, (size_t)M * ldc * sizeof(float)));

    dim3 block(16, 16);
    dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
    sgemm_kahan<<<grid, block>>>(M, N, K, alpha, dA, lda, dB, ldb, dC, ldc);
    gpuErrchk(cudaPeekAtLastError());
    gpuErrchk(cudaMemcpy(hC, dC, (size_t)M * ldc * sizeof(float), cudaMemcpyDeviceToHost));

    double err_kahan = 0.0, err_plain = 0.0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double ref = 0.0;
            float plain = 0.0f;
            for (int k = 0; k < K; k++) {
                ref += (double)hA[i * lda + k] * hB[k * ldb + j];
                plain += hA[i * lda + k] * hB[k * ldb + j];
            }
            ref *= alpha;
            err_kahan = fmax(err_kahan, fabs(ref - hC[i * ldc + j]));
            err_plain = fmax(err_plain, fabs(ref - alpha * plain));
        }
    printf("max abs error: kahan %.3e, plain %.3e\n", err_kahan, err_plain);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(hA); free(hB); free(hC);
    return err_kahan < 1e-4 ? 0 : 1;
}
