// style: small PyTorch-extension-like batched matmul (bmm) templated on the element type (template<typename T>) with explicit instantiations for float and double; batch index taken from blockIdx.z, per-batch base pointers computed with size_t offsets, __restrict__ everywhere
// launch: grid cdiv(N, 16), cdiv(M, 16), batch block 16, 16
// sizes: batch=3 M=67 N=93 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

// C[b] = A[b] @ B[b],  A: (batch, M, K), B: (batch, K, N), C: (batch, M, N)
template <typename T>
__global__ void bmm_kernel(const T *__restrict__ A,
                           const T *__restrict__ B,
                           T *__restrict__ C,
                           int batch, int M, int N, int K)
{
    const int b = blockIdx.z;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;

    if (b >= batch || row >= M || col >= N)
        return;

    const T *a = A + (size_t)b * M * K;
    const T *bm = B + (size_t)b * K * N;
    T *c = C + (size_t)b * M * N;

    T acc = T(0);
    for (int k = 0; k < K; ++k)
        acc += a[row * K + k] * bm[k * N + col];
    c[row * N + col] = acc;
}

template __global__ void bmm_kernel<float>(const float *__restrict__, const float *__restrict__,
                                           float *__restrict__, int, int, int, int);
template __global__ void bmm_kernel<double>(const double *__restrict__, const double *__restrict__,
                                            double *__restrict__, int, int, int, int);
