// style: minimal PyTorch-extension-style bmm, batch folded into blockIdx.x (blocks per matrix computed in-kernel), 1D blocks
// launch: grid cdiv(M * N, 128) * nbatch block 128
// sizes: nbatch=2 M=67 N=40 K=67
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cuda_runtime.h>

// out[b] = lhs[b] (M x K) @ rhs[b] (K x N), contiguous batches
__global__ void bmm_fold_kernel(const float *lhs, const float *rhs, float *out,
                                int nbatch, int M, int N, int K)
{
    const int per_mat = (M * N + 127) / 128;   // blocks per batch entry
    const int b = blockIdx.x / per_mat;
    const int e = (blockIdx.x % per_mat) * 128 + threadIdx.x;
    if (b >= nbatch || e >= M * N)
        return;
    const int m = e / N;
    const int n = e % N;
    const float *L = lhs + (long)b * M * K;
    const float *R = rhs + (long)b * K * N;
    float v = 0.f;
    for (int k = 0; k < K; ++k)
        v += L[m * K + k] * R[k * N + n];
    out[(long)b * M * N + e] = v;
}
