// style: header-only C++ library kernel, template<typename T> Gram matrix G = A * A^T (full n x n, A row-major n x d), two row pointers into the same matrix, early return, templated launcher
// launch: grid cdiv(n, 32), cdiv(n, 8) block 32, 8
// sizes: n=129 d=45
// template: float
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cstddef>
#include <cuda_runtime.h>

namespace gram {

template <typename T>
__global__ void gram_matrix_kernel(const T *A, T *G, int n, int d)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n)
        return;

    const T *xi = A + (size_t)i * d;
    const T *xj = A + (size_t)j * d;
    T acc = T(0);
    for (int p = 0; p < d; p++)
        acc += xi[p] * xj[p];
    G[(size_t)i * n + j] = acc;
}

template <typename T>
cudaError_t gram_matrix(const T *dA, T *dG, int n, int d, cudaStream_t stream = 0)
{
    dim3 threads(32, 8);
    dim3 blocks((n + threads.x - 1) / threads.x, (n + threads.y - 1) / threads.y);
    gram_matrix_kernel<T><<<blocks, threads, 0, stream>>>(dA, dG, n, d);
    return cudaGetLastError();
}

template cudaError_t gram_matrix<float>(const float *, float *, int, int, cudaStream_t);
template cudaError_t gram_matrix<double>(const double *, double *, int, int, cudaStream_t);

} // namespace gram
