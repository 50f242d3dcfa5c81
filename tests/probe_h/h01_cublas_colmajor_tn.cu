// style: cuBLAS-style column-major reference SGEMM, transa/transb resolved by picking one of two kernels; TN variant reads op(A) as A[k + i*lda]
// launch: grid cdiv(M, 16), cdiv(N, 16) block 16, 16
// sizes: M=187 N=141 K=223 lda=229 ldb=227 ldc=193 alpha=1.5 beta=0.5
// kernel: sgemm_tn_kernel
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

// Column-major storage, as in BLAS:  X(r, c) lives at X[r + c * ldx].
// C (M x N) = alpha * op(A) (M x K) * op(B) (K x N) + beta * C

// transa = 'N', transb = 'N': A is M x K (lda >= M), B is K x N (ldb >= K)
__global__ void sgemm_nn_kernel(int M, int N, int K, float alpha,
                                const float *A, int lda,
                                const float *B, int ldb,
                                float beta, float *C, int ldc)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;   // row of C (contiguous in col-major)
    int j = blockIdx.y * blockDim.y + threadIdx.y;   // column of C
    if (i >= M || j >= N) return;

    float s = 0.0f;
    for (int k = 0; k < K; ++k)
        s += A[i + k * lda] * B[k + j * ldb];

    if (beta == 0.0f)
        C[i + j * ldc] = alpha * s;                  // BLAS: C is not read when beta == 0
    else
        C[i + j * ldc] = alpha * s + beta * C[i + j * ldc];
}

// transa = 'T', transb = 'N': A is stored K x M (lda >= K), op(A)(i,k) = A[k + i*lda]
__global__ void sgemm_tn_kernel(int M, int N, int K, float alpha,
                                const float *A, int lda,
                                const float *B, int ldb,
                                float beta, float *C, int ldc)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N) return;

    const float *a_col = A + i * lda;   // column i of the stored A == row i of A^T
    const float *b_col = B + j * ldb;
    float s = 0.0f;
    for (int k = 0; k < K; ++k)
        s += a_col[k] * b_col[k];

    if (beta == 0.0f)
        C[i + j * ldc] = alpha * s;
    else
        C[i + j * ldc] = alpha * s + beta * C[i + j * ldc];
}

static void my_sgemm(char transa, char transb, int M, int N, int K, float alpha,
                     const float *A, int lda, const float *B, int ldb,
                     float beta, float *C, int ldc)
{
    dim3 block(16, 16);
    dim3 grid((M + 15) / 16, (N + 15) / 16);
    if (transb != 'N' && transb != 'n') {
        fprintf(stderr, "transb=%c not implemented\n", transb);
        return;
    }
    if (transa == 'T' || transa == 't')
        sgemm_tn_kernel<<<grid, block>>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    else
        sgemm_nn_kernel<<<grid, block>>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

int main()
{
    const int M = 187, N = 141, K = 223;
    const int lda = 229, ldb = 227, ldc = 193;   // A^T stored K x M, padded to 229 rows
    const float alpha = 1.5f, beta = 0.5f;

    size_t nA = (size_t)lda * M, nB = (size_t)ldb * N, nC = (size_t)ldc * N;
    float *hA = (float *)malloc(nA * sizeof(float));
    float *hB = (float *)malloc(nB * sizeof(float));
    float *hC = (float *)malloc(nC * sizeof(float));
    for (size_t t = 0; t < nA; ++t) hA[t] = (float)(rand() % 7 - 3);
    for (size_t t = 0; t < nB; ++t) hB[t] = (float)(rand() % 7 - 3);
    for (size_t t = 0; t < nC; ++t) hC[t] = 1.0f;

    float *dA, *dB, *dC;
    cudaMalloc(&dA, nA * sizeof(float));
    cudaMalloc(&dB, nB * sizeof(float));
    cudaMalloc(&dC, nC * sizeof(float));
    cudaMemcpy(dA, hA, nA * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, nB * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dC, hC, nC * sizeof(float), cudaMemcpyHostToDevice);

    my_sgemm('T', 'N', M, N, K, alpha, dA, lda, dB, ldb, beta, dC, ldc);
    cudaDeviceSynchronize();
    cudaMemcpy(hC, dC, nC * sizeof(float), cudaMemcpyDeviceToHost);

    // spot check C(3, 5)
    float ref = 0.0f;
    for (int k = 0; k < K; ++k) ref += hA[k + 3 * lda] * hB[k + 5 * ldb];
    ref = alpha * ref + beta * 1.0f;
    printf("C(3,5) = %f (ref %f)\n", hC[3 + 5 * ldc], ref);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(hA); free(hB); free(hC);
    return 0;
}
