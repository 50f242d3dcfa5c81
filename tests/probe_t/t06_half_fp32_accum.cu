// style: mixed-precision inference engine helper; __half operands from cuda_fp16.h converted with __half2float inside the loop, fp32 accumulator, result stored back as __half via __float2half, sizes M/N/K with lda/ldb/ldc, float-to-half packing kernel after it, no host code
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=67 N=129 K=45 lda=45 ldb=129 ldc=129
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>
#include <cuda_fp16.h>

__global__ void hgemm_fp32acc(const __half *A, const __half *B, __half *C,
                              int M, int N, int K, int lda, int ldb, int ldc)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.f;
        for (int k = 0; k < K; ++k) {
            float a = __half2float(A[row * lda + k]);
            float b = __half2float(B[k * ldb + col]);
            acc += a * b;
        }
        C[row * ldc + col] = __float2half(acc);
    }
}

__global__ void float_to_half(const float *in, __half *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __float2half(in[i]);
}
