// style: hand-written stand-in for a cublasLtMatmul call with CUBLASLT_EPILOGUE_GELU_BIAS (transa = T, transb = N, column-major, strided batch): D = gelu(alpha * A^T B + beta * C + bias) with fp16 A/B/C/D, fp32 compute, bias of length m broadcast along columns, tanh-GELU as cuBLASLt applies it; 16x16 shared-memory tiles converted to float at load time (sA[TILE][TILE+1]), one output per thread (no register tile), row i on threadIdx.x, batch on blockIdx.z with long long strides
// launch: grid cdiv(m, 16), cdiv(n, 16), batchCount block 16, 16
// sizes: m=45 n=37 k=67 lda=72 ldb=68 ldc=48 strideA=3240 strideB=2516 strideC=1776 batchCount=3 alpha=1.5 beta=0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_fp16.h>
#include <stdint.h>

#define TILE 16

__device__ __forceinline__ float gelu_tanh(float x) {
    const float kBeta = 0.7978845608028654f;   // sqrt(2/pi)
    const float kKappa = 0.044715f;
    return 0.5f * x * (1.0f + tanhf(kBeta * (x + kKappa * x * x * x)));
}

// op(A) = A^T where A is stored k x m (lda >= k); B is k x n (ldb >= k); C, D are m x n (ldc >= m)
__global__ void lt_matmul_tn_gelu_bias(int m, int n, int k,
                                       float alpha,
                                       const __half* __restrict__ A, int lda, long long strideA,
                                       const __half* __restrict__ B, int ldb, long long strideB,
                                       float beta,
                                       const __half* C, int ldc, long long strideC,
                                       __half* D,
                                       const __half* __restrict__ bias,
                                       int batchCount)
{
    __shared__ float sA[TILE][TILE + 1];   // sA[i_local][l_local] = op(A)(i, l)
    __shared__ float sB[TILE][TILE + 1];   // sB[l_local][j_local] = B(l, j)

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = blockIdx.x * TILE, col0 = blockIdx.y * TILE;
    const int i = row0 + tx;
    const int j = col0 + ty;
    const int batch = blockIdx.z;
    if (batch >= batchCount) return;

    const __half* Ab = A + batch * strideA;
    const __half* Bb = B + batch * strideB;

    float acc = 0.0f;
    for (int l0 = 0; l0 < k; l0 += TILE) {
        // thread (tx, ty) loads op(A)(row0 + ty, l0 + tx) = A[(l0 + tx) + (row0 + ty) * lda] (contiguous in tx)
        sA[ty][tx] = (row0 + ty < m && l0 + tx < k) ? __half2float(Ab[(l0 + tx) + (size_t)(row0 + ty) * lda]) : 0.0f;
        // and B(l0 + tx, col0 + ty) = B[(l0 + tx) + (col0 + ty) * ldb]
        sB[tx][ty] = (col0 + ty < n && l0 + tx < k) ? __half2float(Bb[(l0 + tx) + (size_t)(col0 + ty) * ldb]) : 0.0f;
        __syncthreads();
#pragma unroll
        for (int ll = 0; ll < TILE; ++ll)
            acc += sA[tx][ll] * sB[ll][ty];
        __syncthreads();
    }

    if (i < m && j < n) {
        const size_t cidx = batch * strideC + i + (size_t)j * ldc;
        float v = alpha * acc;
        if (beta != 0.0f) v += beta * __half2float(C[cidx]);
        v += __half2float(bias[i]);
        D[cidx] = __float2half(gelu_tanh(v));
    }
}
