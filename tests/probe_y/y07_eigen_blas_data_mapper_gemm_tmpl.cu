// style: Eigen-internals flavoured GPU GEMM: namespace Eigen::internal, EIGEN_DEVICE_FUNC / EIGEN_STRONG_INLINE macros, const_blas_data_mapper / blas_data_mapper accessor classes with operator()(i, j) templated on StorageOrder, lhs RowMajor (rows x depth) and rhs/res ColMajor with lhsStride/rhsStride/resStride, res += alpha * lhs * rhs (Eigen's general_matrix_matrix_product semantics), template<typename Scalar, typename Index> kernel instantiated for double and Eigen::Index (std::ptrdiff_t), row i on threadIdx.x
// launch: grid cdiv(rows, 16), cdiv(cols, 16) block 16, 16
// sizes: rows=37 cols=45 depth=67 lhsStride=69 rhsStride=70 resStride=41 alpha=1.5
// template: double, std::ptrdiff_t
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>
#include <cstddef>

#define EIGEN_DEVICE_FUNC __host__ __device__
#define EIGEN_STRONG_INLINE __forceinline__

namespace Eigen {

typedef std::ptrdiff_t DenseIndex;
typedef DenseIndex Index;

enum StorageOptions { ColMajor = 0, RowMajor = 0x1 };

namespace internal {

template <typename Scalar, typename Index, int StorageOrder>
class const_blas_data_mapper {
 public:
  EIGEN_DEVICE_FUNC const_blas_data_mapper(const Scalar* data, Index stride) : m_data(data), m_stride(stride) {}
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE const Scalar& operator()(Index i, Index j) const {
    return m_data[StorageOrder == RowMajor ? j + i * m_stride : i + j * m_stride];
  }
 protected:
  const Scalar* __restrict__ m_data;
  const Index m_stride;
};

template <typename Scalar, typename Index, int StorageOrder>
class blas_data_mapper {
 public:
  EIGEN_DEVICE_FUNC blas_data_mapper(Scalar* data, Index stride) : m_data(data), m_stride(stride) {}
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE Scalar& operator()(Index i, Index j) const {
    return m_data[StorageOrder == RowMajor ? j + i * m_stride : i + j * m_stride];
  }
 protected:
  Scalar* __restrict__ m_data;
  const Index m_stride;
};

// res(rows x cols, ColMajor) += alpha * lhs(rows x depth, RowMajor) * rhs(depth x cols, ColMajor)
template <typename Scalar, typename Index>
__global__ void general_matrix_matrix_product_kernel(Index rows, Index cols, Index depth,
                                                     const Scalar* _lhs, Index lhsStride,
                                                     const Scalar* _rhs, Index rhsStride,
                                                     Scalar* _res, Index resStride,
                                                     Scalar alpha) {
  typedef const_blas_data_mapper<Scalar, Index, RowMajor> LhsMapper;
  typedef const_blas_data_mapper<Scalar, Index, ColMajor> RhsMapper;
  typedef blas_data_mapper<Scalar, Index, ColMajor> ResMapper;
  LhsMapper lhs(_lhs, lhsStride);
  RhsMapper rhs(_rhs, rhsStride);
  ResMapper res(_res, resStride);

  const Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
  const Index j = static_cast<Index>(blockIdx.y) * blockDim.y + threadIdx.y;
  if (i >= rows || j >= cols) return;

  Scalar acc(0);
  for (Index k = 0; k < depth; ++k) acc += lhs(i, k) * rhs(k, j);
  res(i, j) += alpha * acc;
}

template <typename Scalar, typename Index>
void gpu_gemm_run(Index rows, Index cols, Index depth, const Scalar* lhs, Index lhsStride,
                  const Scalar* rhs, Index rhsStride, Scalar* res, Index resStride, Scalar alpha,
                  cudaStream_t stream) {
  dim3 block(16, 16);
  dim3 grid(static_cast<unsigned>((rows + 15) / 16), static_cast<unsigned>((cols + 15) / 16));
  general_matrix_matrix_product_kernel<Scalar, Index><<<grid, block, 0, stream>>>(
      rows, cols, depth, lhs, lhsStride, rhs, rhsStride, res, resStride, alpha);
}

template void gpu_gemm_run<double, Index>(Index, Index, Index, const double*, Index, const double*, Index,
                                          double*, Index, double, cudaStream_t);
template void gpu_gemm_run<float, Index>(Index, Index, Index, const float*, Index, const float*, Index,
                                         float*, Index, float, cudaStream_t);

}  // namespace internal
}  // namespace Eigen
