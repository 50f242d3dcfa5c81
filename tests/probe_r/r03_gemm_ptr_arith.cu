// style: C-programmer's first CUDA kernel (university lab sheet); all indexing written as pointer arithmetic *(A + i*K + k) and *(C + i*N + j) = s, i/j names, i from blockIdx.y*blockDim.y + threadIdx.y
// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M=45 N=67 K=129
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

__global__ void matmul_ptr(float *A, float *B, float *C, int M, int N, int K)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < M && j < N) {
        float s = 0;
        int k;
        for (k = 0; k < K; k++)
            s += *(A + i * K + k) * *(B + k * N + j);
        *(C + i * N + j) = s;
    }
}
