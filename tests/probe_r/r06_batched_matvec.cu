// style: PyTorch-extension "batched matrix-vector" kernel for an nn.Linear without bias; y[b][i] = sum_k W[i][k] * x[b][k] (a GEMM x * W^T), batch index from blockIdx.y, i from blockIdx.x*blockDim.x+threadIdx.x, IN/OUT size names
// launch: grid cdiv(OUT, 64), BATCH block 64
// sizes: BATCH=13 OUT=83 IN=117
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

__global__ void batched_matvec(const float* __restrict__ W, const float* __restrict__ x,
                               float* __restrict__ y, int BATCH, int OUT, int IN)
{
    int b = blockIdx.y;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= BATCH || i >= OUT) return;
    const float* xb = x + (size_t)b * IN;
    float acc = 0.f;
    for (int k = 0; k < IN; ++k) {
        acc += W[(size_t)i * IN + k] * xb[k];
    }
    y[(size_t)b * OUT + i] = acc;
}
