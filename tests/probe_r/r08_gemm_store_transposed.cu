// style: GitHub "cuda-exercises" repo, output written column-major for a Fortran caller; A and B row-major but the result stored transposed as C[col*M + row], row from blockIdx.y, unsigned int indices
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=77 N=45 K=61
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

__global__ void matmul_out_colmajor(const float *A, const float *B, float *C,
                                    unsigned int M, unsigned int N, unsigned int K)
{
    unsigned int row = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float v = 0.0f;
        for (unsigned int k = 0; k < K; ++k)
            v += A[row * K + k] * B[k * N + col];
        C[col * M + row] = v;
    }
}
