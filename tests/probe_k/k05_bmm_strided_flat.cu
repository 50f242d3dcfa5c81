// style: cuBLAS-StridedBatched look-alike written by hand, batch index from blockIdx.y, (row, col) flattened on x and split with / and %, long long batch strides passed as ints, acc in a local
// launch: grid cdiv(M * N, 128), batch block 128
// sizes: batch=3 M=37 N=67 K=45 strideA=1665 strideB=3015 strideC=2479
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cuda_runtime.h>

// C[b] = A[b] * B[b]; A[b] is M x K, B[b] is K x N, C[b] is M x N, row-major,
// A[b] starts at A + b * strideA, etc.
__global__ void bmm_strided_flat(const float *__restrict__ A, const float *__restrict__ B,
                                 float *__restrict__ C, int batch, int M, int N, int K,
                                 int strideA, int strideB, int strideC)
{
    const int flat = blockIdx.x * blockDim.x + threadIdx.x;
    const int b = blockIdx.y;
    if (flat >= M * N || b >= batch)
        return;

    const int m = flat / N;
    const int n = flat % N;

    const float *Ab = A + (long long)b * strideA;
    const float *Bb = B + (long long)b * strideB;
    float *Cb = C + (long long)b * strideC;

    float acc = 0.f;
    for (int k = 0; k < K; ++k)
        acc += Ab[m * K + k] * Bb[k * N + n];
    Cb[m * N + n] = acc;
}
