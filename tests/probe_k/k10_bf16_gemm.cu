// style: mixed-precision inference snippet, __nv_bfloat16 operands via a using-alias, fp32 accumulation with __bfloat162float and fmaf, fp32 output, size_t row pointers, ++k
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=67 N=129 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cuda_runtime.h>
#include <cuda_bf16.h>

using bf16 = __nv_bfloat16;

// C (M x N, fp32) = A (M x K, bf16, row-major) * B (K x N, bf16, row-major)
__global__ void gemm_bf16_f32acc(const bf16 *__restrict__ A, const bf16 *__restrict__ B,
                                 float *__restrict__ C, int M, int N, int K)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;

    const bf16 *a_row = A + (size_t)row * K;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) {
        float a = __bfloat162float(a_row[k]);
        float b = __bfloat162float(B[(size_t)k * N + col]);
        sum = fmaf(a, b, sum);
    }
    C[(size_t)row * N + col] = sum;
}
