// style: header-only C++ numerics library; everything inside namespace linalg::detail, templated MulAdd<T> functor whose operator() does a*b+c, kernel template<typename T> gemm_functor_kernel instantiated explicitly for float, index_t alias for int, no host code
// launch: grid cdiv(n, 16), cdiv(m, 16) block 16, 16
// sizes: m=67 n=129 k=45
// template: float
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

namespace linalg {
namespace detail {

using index_t = int;

template<typename T> struct MulAdd {
    __device__ T operator()(T a, T b, T c) const { return a*b+c; }
};

template<typename T>
__global__ void gemm_functor_kernel(const T *a, const T *b, T *c,
                                    index_t m, index_t n, index_t k)
{
    const index_t i = static_cast<index_t>(blockIdx.y * blockDim.y + threadIdx.y);
    const index_t j = static_cast<index_t>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= m || j >= n) return;

    MulAdd<T> op;
    T acc = T(0);
    for (index_t p = 0; p < k; ++p)
        acc = op(a[i * k + p], b[p * n + j], acc);
    c[i * n + j] = acc;
}

template __global__ void gemm_functor_kernel<float>(const float *, const float *, float *,
                                                    index_t, index_t, index_t);

}  // namespace detail
}  // namespace linalg
