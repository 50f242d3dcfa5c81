// launch: grid cdiv(m, 16), cdiv(n, 16) block 16, 16
// sizes: lda=320 ldb=240 ldc=320 k=208 alpha=1.5 beta=0.5 m=320 n=240
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// Parboil sgemm "cuda_base": column-major C = alpha*A*B^T + beta*C, no bounds checks (m, n multiples of TILE_SZ)
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <iostream>
#include <cuda_runtime.h>

#define CHECK_ERROR(errorMessage) {                                    \
    cudaError_t err = cudaGetLastError();                              \
    if( cudaSuccess != err) {                                          \
      fprintf(stderr, "Cuda error: %s in file '%s' in line %i : %s.\n", \
              errorMessage, __FILE__, __LINE__, cudaGetErrorString( err) );\
      exit(EXIT_FAILURE);                                              \
    }                                                                  \
  }

#define TILE_SZ 16

__global__ void mysgemmNT( const float *A, int lda, const float *B, int ldb, float* C, int ldc, int k, float alpha, float beta )
{
    float c = 0.0f;
    int m = blockIdx.x * blockDim.x + threadIdx.x;
    int n = blockIdx.y * blockDim.y + threadIdx.y;

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
    std::cerr << "unsupported value of 'transa' in regtileSgemm()" << std::endl;
    return;
  }

  if ((transb != 'T') && (transb != 't')) {
    std::cerr << "unsupported value of 'transb' in regtileSgemm()" << std::endl;
    return;
  }

  // In this code we assume the matrix sizes are multiple of tile size
  if ((m%TILE_SZ) || (n%TILE_SZ)) {
    std::cerr << "unsupported size of matrix. m should be multiple of " << TILE_SZ
      << "; n should be multiple of " << TILE_SZ << std::endl;
  }

  dim3 grid( m/TILE_SZ , n/TILE_SZ ), threads( TILE_SZ, TILE_SZ );
  mysgemmNT<<<grid, threads>>>( A, lda, B, ldb, C, ldc, k, alpha, beta);
  CHECK_ERROR("mySgemm");
}
