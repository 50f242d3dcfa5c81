// style: header-library style templated naive GEMM (typename T, BLOCK_SIZE) with a host launcher and explicit instantiation; instantiated in double
// launch: grid cdiv(n, 16), cdiv(m, 16) block 16, 16
// sizes: m=187 n=141 k=223 alpha=2.0 beta=0.5
// template: double, 16
// expect: matmul-tiles
#include <cuda_runtime.h>

template <typename T, int BLOCK_SIZE>
__global__ void gemm_nn_kernel(int m, int n, int k, T alpha,
                               const T* __restrict__ a, const T* __restrict__ b,
                               T beta, T* __restrict__ c)
{
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int col = blockIdx.x * BLOCK_SIZE + tx;
    const int row = blockIdx.y * BLOCK_SIZE + ty;

    if (row < m && col < n) {
        T sum = T(0);
        for (int p = 0; p < k; ++p)
            sum += a[row * k + p] * b[p * n + col];
        T* out = c + row * n + col;
        *out = alpha * sum + beta * (*out);
    }
}

template <typename T, int BLOCK_SIZE>
cudaError_t launch_gemm_nn(int m, int n, int k, T alpha, const T* a, const T* b,
                           T beta, T* c, cudaStream_t stream = 0)
{
    dim3 block(BLOCK_SIZE, BLOCK_SIZE);
    dim3 grid((n + BLOCK_SIZE - 1) / BLOCK_SIZE, (m + BLOCK_SIZE - 1) / BLOCK_SIZE);
    gemm_nn_kernel<T, BLOCK_SIZE><<<grid, block, 0, stream>>>(m, n, k, alpha, a, b, beta, c);
    return cudaGetLastError();
}

template cudaError_t launch_gemm_nn<double, 16>(int, int, int, double, const double*, const double*,
                                                double, double*, cudaStream_t);
