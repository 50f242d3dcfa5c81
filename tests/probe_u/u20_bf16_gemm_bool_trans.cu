// style: ML-framework reference kernel for a bf16 matmul with bool transA/transB flags (row-major; A is M x K or K x M, B is K x N or N x K), __nv_bfloat16 inputs read through __bfloat162float, float accumulator, float output with alpha/beta
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=67 N=93 K=45 transA=0 transB=1 alpha=1.5 beta=0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>
#include <cuda_bf16.h>

__global__ void gemm_bf16_ref(const __nv_bfloat16 *A, const __nv_bfloat16 *B, float *C,
                              int M, int N, int K, bool transA, bool transB,
                              float alpha, float beta)
{
    int m = blockIdx.y * blockDim.y + threadIdx.y;
    int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= M || n >= N)
        return;

    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {
        __nv_bfloat16 a = transA ? A[k * M + m] : A[m * K + k];
        __nv_bfloat16 b = transB ? B[n * K + k] : B[k * N + n];
        acc += __bfloat162float(a) * __bfloat162float(b);
    }
    float out = alpha * acc;
    if (beta != 0.0f)
        out += beta * C[m * N + n];
    C[m * N + n] = out;
}
