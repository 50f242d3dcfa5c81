// style: int8 quantized GEMM reference kernel (int8_t inputs, int32 accumulator and output) from quantization repos, B stored K x N
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=187 N=141 K=223
// expect: matmul-tiles|matmul-wmma
#include <cstdint>

__global__ void gemm_s8s8s32(const int8_t* A, const int8_t* B, int32_t* C, int M, int N, int K)
{
    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * 16 + tx;
    int row = blockIdx.y * 16 + ty;
    if (row >= M || col >= N)
        return;
    int32_t acc = 0;
    for (int k = 0; k < K; k++) {
        acc += (int32_t)A[row * K + k] * (int32_t)B[k * N + col];
    }
    C[row * N + col] = acc;
}
