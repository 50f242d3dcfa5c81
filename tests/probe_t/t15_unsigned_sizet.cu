// style: large-scale scientific library code defensive about 64-bit overflow; unsigned int sizes M/N/K, every offset computed as size_t with static_cast<size_t>, loop counter unsigned int, guard with unsigned comparisons, no host code
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=67 N=129 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstddef>
#include <cuda_runtime.h>

__global__ void gemm_u32_sizet(const float *A, const float *B, float *C,
                               unsigned int M, unsigned int N, unsigned int K)
{
    const unsigned int row = blockIdx.y * blockDim.y + threadIdx.y;
    const unsigned int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;

    const size_t a_off = static_cast<size_t>(row) * static_cast<size_t>(K);
    float acc = 0.0f;
    for (unsigned int k = 0; k < K; ++k) {
        const size_t b_off = static_cast<size_t>(k) * static_cast<size_t>(N) + static_cast<size_t>(col);
        acc += A[a_off + k] * B[b_off];
    }
    const size_t c_off = static_cast<size_t>(row) * static_cast<size_t>(N) + static_cast<size_t>(col);
    C[c_off] = acc;
}
