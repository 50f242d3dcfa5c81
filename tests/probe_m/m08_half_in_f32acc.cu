// style: mixed-precision homework kernel: __half A and B via cuda_fp16.h, __half2float + fmaf into a float accumulator, float C; block shape hard-coded as 32 and 4 instead of blockDim, two separate early returns
// launch: grid cdiv(N, 32), cdiv(M, 4) block 32, 4
// sizes: M=67 N=129 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_fp16.h>

__global__ void hgemm_f32acc(const __half *__restrict__ A,   // M x K
                             const __half *__restrict__ B,   // K x N
                             float *__restrict__ C,          // M x N
                             int M, int N, int K)
{
    int col = blockIdx.x * 32 + threadIdx.x;
    int row = blockIdx.y * 4 + threadIdx.y;
    if (row >= M) return;
    if (col >= N) return;

    float acc = 0.f;
    for (int kk = 0; kk < K; ++kk) {
        float a = __half2float(A[row * K + kk]);
        float b = __half2float(B[kk * N + col]);
        acc = fmaf(a, b, acc);
    }
    C[row * N + col] = acc;
}
