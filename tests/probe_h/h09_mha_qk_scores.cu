// style: LLM-inference hobby project attention scores S = scale * Q.K^T (+ optional additive mask), (batch*head) in blockIdx.z, head_dim as template parameter
// launch: grid cdiv(seq_len, 16), cdiv(seq_len, 16), batch * n_heads block 16, 16
// sizes: batch=2 n_heads=3 seq_len=187 scale=0.125
// template: float, 64
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cuda_runtime.h>

// q, k   : [batch, n_heads, seq_len, HEAD_DIM]
// mask   : [seq_len, seq_len] additive (0 / -inf style), may be nullptr
// scores : [batch, n_heads, seq_len, seq_len]
template <typename T, int HEAD_DIM>
__global__ void attn_scores_kernel(const T *__restrict__ q,
                                   const T *__restrict__ k,
                                   const T *__restrict__ mask,
                                   T *__restrict__ scores,
                                   int batch, int n_heads, int seq_len,
                                   float scale)
{
    const int bh = blockIdx.z;                               // b * n_heads + h
    const int qi = blockIdx.y * blockDim.y + threadIdx.y;    // query position
    const int kj = blockIdx.x * blockDim.x + threadIdx.x;    // key position
    if (bh >= batch * n_heads || qi >= seq_len || kj >= seq_len)
        return;

    const T *qrow = q + ((size_t)bh * seq_len + qi) * HEAD_DIM;
    const T *krow = k + ((size_t)bh * seq_len + kj) * HEAD_DIM;

    float acc = 0.0f;
#pragma unroll
    for (int d = 0; d < HEAD_DIM; ++d)
        acc += static_cast<float>(qrow[d]) * static_cast<float>(krow[d]);

    acc *= scale;
    if (mask != nullptr)
        acc += static_cast<float>(mask[(size_t)qi * seq_len + kj]);

    scores[((size_t)bh * seq_len + qi) * seq_len + kj] = static_cast<T>(acc);
}
