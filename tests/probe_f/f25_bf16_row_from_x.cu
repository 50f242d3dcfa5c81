// style: beginner bf16 matmul (row = blockIdx.x*blockDim.x + threadIdx.x, col from .y), float accumulate and float output
// launch: grid cdiv(m, 16), cdiv(n, 16) block 16, 16
// sizes: m=179 n=131 k=155
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce|matmul-library
#include <cuda_bf16.h>

__global__ void matmul_bf16(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c,
                            int m, int n, int k)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y * blockDim.y + threadIdx.y;

    if (row < m && col < n) {
        float acc = 0.f;
        for (int i = 0; i < k; i++) {
            acc += __bfloat162float(a[row * k + i]) * __bfloat162float(b[i * n + col]);
        }
        c[row * n + col] = acc;
    }
}
