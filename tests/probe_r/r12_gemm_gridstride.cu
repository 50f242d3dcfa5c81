// style: "grid-stride loops" blog pattern applied to matmul; a fixed 1-D grid walks every output with for (idx = blockIdx.x*blockDim.x+threadIdx.x; idx < M*N; idx += gridDim.x*blockDim.x), i = idx / N, j = idx % N
// launch: grid 13 block 128
// sizes: M=71 N=89 K=55
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

__global__ void matmul_gridstride(const float *A, const float *B, float *C, int M, int N, int K)
{
    for (int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < M * N; idx += gridDim.x * blockDim.x) {
        int i = idx / N, j = idx % N;
        float s = 0.0f;
        for (int k = 0; k < K; ++k)
            s += A[i * K + k] * B[k * N + j];
        C[idx] = s;
    }
}
