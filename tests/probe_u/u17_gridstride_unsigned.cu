// style: NVIDIA-blog "grid-stride loop" idiom applied to matmul: a 1-D grid smaller than the output, each thread walks outputs idx += blockDim.x * gridDim.x, every index and size is unsigned int, (row, col) recovered with / and %
// launch: grid cdiv(M * N, 1024) block 256
// sizes: M=67 N=93 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

__global__ void matmul_grid_stride(const float *A, const float *B, float *C,
                                   unsigned int M, unsigned int N, unsigned int K)
{
    const unsigned int total = M * N;
    const unsigned int stride = blockDim.x * gridDim.x;
    for (unsigned int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < total; idx += stride) {
        unsigned int r = idx / N;
        unsigned int c = idx % N;
        float s = 0.0f;
        for (unsigned int k = 0; k < K; ++k)
            s += A[r * K + k] * B[k * N + c];
        C[idx] = s;
    }
}

void matmul(const float *dA, const float *dB, float *dC, unsigned M, unsigned N, unsigned K)
{
    unsigned threads = 256;
    unsigned blocks = (M * N + 4 * threads - 1) / (4 * threads);   // ~4 outputs per thread
    matmul_grid_stride<<<blocks, threads>>>(dA, dB, dC, M, N, K);
}
