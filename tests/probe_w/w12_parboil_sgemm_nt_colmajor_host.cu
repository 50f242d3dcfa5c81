// style: Parboil sgemm cuda_base mysgemmNT: column-major C = alpha*A*B^T + beta*C with A(m + i*lda) and B(n + i*ldb) indexing, argument order (A, lda, B, ldb, C, ldc, k, alpha, beta) plus appended M/N bounds for the tail guard, basicSgemm('N','T',...) wrapper with TILE_SZ 16 and a host main checking against a CPU loop
// launch: grid cdiv(M, 16), cdiv(N, 16) block 16, 16
// sizes: lda=75 ldb=53 ldc=75 k=67 alpha=1.5 beta=0.5 M=75 N=53
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define CHECK_ERROR(errorMessage) {                                    \
    cudaError_t err = cudaGetLastError();                                    \
    if( cudaSuccess != err) {                                                \
        fprintf(stderr, "Cuda error: %s in file '%s' in line %i : %s.\n",    \
                errorMessage, __FILE__, __LINE__, cudaGetErrorString( err) );\
        exit(EXIT_FAILURE);                                                  \
    }                                                                        \
  }

// Parameters of tile sizes
#define TILE_SZ 16

__global__ void mysgemmNT( const float *A, int lda, const float *B, int ldb, float* C, int ldc, int k, float alpha, float beta, int M, int N )
{
    float c = 0.0f;
    int m = blockIdx.x * TILE_SZ + threadIdx.x;
    int n = blockIdx.y * TILE_SZ + threadIdx.y;
    if (m >= M || n >= N) return;

    for (int i = 0; i < k; ++i) {
        float a = A[m + i * lda];
        float b = B[n + i * ldb];
        c += a * b;
    }
    C[m+n*ldc] = C[m+n*ldc] * beta + alpha * c;
}

void basicSgemm( char transa, char transb, int m, int n, int k, float alpha, const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc )
{
    if ((transa != 'N') && (transa != 'n')) {
        fprintf(stderr, "unsupported value of 'transa' in regtileSgemm()\n");
        return;
    }

    if ((transb != 'T') && (transb != 't')) {
        fprintf(stderr, "unsupported value of 'transb' in regtileSgemm()\n");
        return;
    }

    dim3 grid( (m + TILE_SZ - 1) / TILE_SZ, (n + TILE_SZ - 1) / TILE_SZ );
    dim3 threads( TILE_SZ, TILE_SZ );
    mysgemmNT<<<grid, threads>>>( A, lda, B, ldb, C, ldc, k, alpha, beta, m, n );
    CHECK_ERROR("mySgemm");
}

int main (int argc, char *argv[]) {
    int matArow = 75, matAcol = 67;   // A is matArow x matAcol, column major
    int matBrow = 53, matBcol = 67;   // B^T: B is matBrow x matBcol, column major
    if (argc == 4) { matArow = atoi(argv[1]); matBrow = atoi(argv[2]); matAcol = matBcol = atoi(argv[3]); }
    float alpha = 1.5f, beta = 0.5f;

    size_t A_sz = (size_t)matArow * matAcol;
    size_t B_sz = (size_t)matBrow * matBcol;
    size_t C_sz = (size_t)matArow * matBrow;
    float *matA = (float*)malloc(A_sz * sizeof(float));
    float *matB = (float*)malloc(B_sz * sizeof(float));
    float *matC = (float*)malloc(C_sz * sizeof(float));
    float *ref  = (float*)malloc(C_sz * sizeof(float));
    for (size_t i = 0; i < A_sz; i++) matA[i] = (float)(rand() % 17) / 8.0f - 1.0f;
    for (size_t i = 0; i < B_sz; i++) matB[i] = (float)(rand() % 13) / 6.0f - 1.0f;
    for (size_t i = 0; i < C_sz; i++) matC[i] = ref[i] = (float)(rand() % 7) / 3.0f;

    float *dA, *dB, *dC;
    cudaMalloc((void**)&dA, A_sz * sizeof(float));
    cudaMalloc((void**)&dB, B_sz * sizeof(float));
    cudaMalloc((void**)&dC, C_sz * sizeof(float));
    cudaMemcpy(dA, matA, A_sz * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, matB, B_sz * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dC, matC, C_sz * sizeof(float), cudaMemcpyHostToDevice);

    // Use standard sgemm interface
    basicSgemm('N', 'T', matArow, matBrow, matBcol, alpha, dA, matArow, dB, matBrow, beta, dC, matArow);

    cudaMemcpy(matC, dC, C_sz * sizeof(float), cudaMemcpyDeviceToHost);

    for (int mm = 0; mm < matArow; ++mm) {
        for (int nn = 0; nn < matBrow; ++nn) {
            float c = 0.0f;
            for (int i = 0; i < matAcol; ++i) c += matA[mm + i * matArow] * matB[nn + i * matBrow];
            ref[mm + nn * matArow] = ref[mm + nn * matArow] * beta + alpha * c;
        }
    }
    double maxerr = 0.0;
    for (size_t i = 0; i < C_sz; i++) maxerr = fmax(maxerr, fabs((double)matC[i] - (double)ref[i]));
    printf("max abs err = %g\n", maxerr);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(matA); free(matB); free(matC); free(ref);
    return maxerr < 1e-3 ? 0 : 1;
}
