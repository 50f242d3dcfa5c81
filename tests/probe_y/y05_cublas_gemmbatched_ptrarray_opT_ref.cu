// style: cuBLAS test-harness reference for cublasSgemmBatched: column-major, cuBLAS argument order (transa, transb, m, n, k, alpha, Aarray[], lda, Barray[], ldb, beta, Carray[], ldc, batchCount) with cublasOperation_t enums decoded in the kernel (op(A) = A^T here), arrays of device pointers indexed by blockIdx.z, row i on threadIdx.x, alpha/beta epilogue reading C
// launch: grid cdiv(m, 16), cdiv(n, 16), batchCount block 16, 16
// sizes: transa=1 transb=0 m=37 n=45 k=67 lda=70 ldb=69 ldc=40 alpha=1.5 beta=0.5 batchCount=3
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

/* from cublas_api.h (the harness includes <cublas_v2.h>; reproduced so the file stands alone) */
typedef enum {
    CUBLAS_OP_N = 0,
    CUBLAS_OP_T = 1,
    CUBLAS_OP_C = 2,
} cublasOperation_t;

/* C[b] = alpha * op(A[b]) * op(B[b]) + beta * C[b], all column-major */
__global__ void sgemm_batched_reference(cublasOperation_t transa, cublasOperation_t transb,
                                        int m, int n, int k,
                                        float alpha,
                                        const float *const Aarray[], int lda,
                                        const float *const Barray[], int ldb,
                                        float beta,
                                        float *const Carray[], int ldc,
                                        int batchCount)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int batch = blockIdx.z;
    if (i >= m || j >= n || batch >= batchCount) return;

    const float *A = Aarray[batch];
    const float *B = Barray[batch];
    float *C = Carray[batch];

    float sum = 0.0f;
    for (int l = 0; l < k; ++l) {
        float a = (transa == CUBLAS_OP_N) ? A[i + l * lda] : A[l + i * lda];
        float b = (transb == CUBLAS_OP_N) ? B[l + j * ldb] : B[j + l * ldb];
        sum += a * b;
    }
    C[i + j * ldc] = alpha * sum + beta * C[i + j * ldc];
}

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

int main(void)
{
    const int m = 37, n = 45, k = 67, lda = 70, ldb = 69, ldc = 40, batchCount = 3;
    const float alpha = 1.5f, beta = 0.5f;
    const size_t sizeA = (size_t)lda * m;   /* A^T: stored k x m */
    const size_t sizeB = (size_t)ldb * n;   /* stored k x n */
    const size_t sizeC = (size_t)ldc * n;

    float *hA[3], *hB[3], *hC[3], *ref[3];
    float *dA[3], *dB[3], *dC[3];
    for (int b = 0; b < batchCount; ++b) {
        hA[b] = (float *)malloc(sizeA * sizeof(float));
        hB[b] = (float *)malloc(sizeB * sizeof(float));
        hC[b] = (float *)malloc(sizeC * sizeof(float));
        ref[b] = (float *)malloc(sizeC * sizeof(float));
        for (size_t t = 0; t < sizeA; ++t) hA[b][t] = (float)((t * 7 + b) % 19) / 19.0f - 0.5f;
        for (size_t t = 0; t < sizeB; ++t) hB[b][t] = (float)((t * 5 + 3 * b) % 23) / 23.0f - 0.5f;
        for (size_t t = 0; t < sizeC; ++t) hC[b][t] = ref[b][t] = (float)(t % 11) / 11.0f;
        CHECK(cudaMalloc(&dA[b], sizeA * sizeof(float)));
        CHECK(cudaMalloc(&dB[b], sizeB * sizeof(float)));
        CHECK(cudaMalloc(&dC[b], sizeC * sizeof(float)));
        CHECK(cudaMemcpy(dA[b], hA[b], sizeA * sizeof(float), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(dB[b], hB[b], sizeB * sizeof(float), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(dC[b], hC[b], sizeC * sizeof(float), cudaMemcpyHostToDevice));
    }
    const float **dAarray; const float **dBarray; float **dCarray;
    CHECK(cudaMalloc((void **)&dAarray, batchCount * sizeof(float *)));
    CHECK(cudaMalloc((void **)&dBarray, batchCount * sizeof(float *)));
    CHECK(cudaMalloc((void **)&dCarray, batchCount * sizeof(float *)));
    CHECK(cudaMemcpy(dAarray, dA, batchCount * sizeof(float *), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dBarray, dB, batchCount * sizeof(float *), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dCarray, dC, batchCount * sizeof(float *), cudaMemcpyHostToDevice));

    dim3 threads(16, 16);
    dim3 grid((m + 15) / 16, (n + 15) / 16, batchCount);
    sgemm_batched_reference<<<grid, threads>>>(CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, alpha,
                                                dAarray, lda, dBarray, ldb, beta, dCarray, ldc, batchCount);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    double maxerr = 0.0;
    for (int b = 0; b < batchCount; ++b) {
        CHECK(cudaMemcpy(hC[b], dC[b], sizeC * sizeof(float), cudaMemcpyDeviceToHost));
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < m; ++i) {
                double s = 0.0;
                for (int l = 0; l < k; ++l) s += (double)hA[b][l + i * lda] * hB[b][l + j * ldb];
                double r = alpha * s + beta * ref[b][i + j * ldc];
                maxerr = fmax(maxerr, fabs(r - hC[b][i + j * ldc]));
            }
        cudaFree(dA[b]); cudaFree(dB[b]); cudaFree(dC[b]);
        free(hA[b]); free(hB[b]); free(hC[b]); free(ref[b]);
    }
    cudaFree(dAarray); cudaFree(dBarray); cudaFree(dCarray);
    printf("max error %e\n", maxerr);
    return maxerr < 1e-3 ? 0 : 1;
}
