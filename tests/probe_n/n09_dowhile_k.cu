// style: research-code GEMM -- counters declared up front, k loop written as a do-while, index variable reassigned to the output slot
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=67 N=129 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

__global__ void sgemm_dowhile(int M, int N, int K,
                              const float *__restrict__ A,
                              const float *__restrict__ B,
                              float *__restrict__ C)
{
    int r, c, k, idx;
    float acc;

    c = blockIdx.x * blockDim.x + threadIdx.x;
    r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= M || c >= N || K <= 0)
        return;

    acc = 0.0f;
    k = 0;
    do {
        acc += A[r * K + k] * B[k * N + c];
        k++;
    } while (k < K);

    idx = r * N;
    idx += c;
    C[idx] = acc;
}
