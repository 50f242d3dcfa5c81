// style: Caffe-style templated Dtype kernel instantiated for double, CUDA_KERNEL_LOOP grid-stride macro over nthreads = M*N with CAFFE_GET_BLOCKS / CAFFE_CUDA_NUM_THREADS (512), index split into (m, n), computes C = alpha * A^T * B + beta * C with A stored K x M (CblasTrans, CblasNoTrans)
// launch: grid cdiv(nthreads, 512) block 512
// sizes: nthreads=195 M=13 N=15 K=77 alpha=1.5 beta=0.5
// template: double
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

// CUDA: grid stride looping
#define CUDA_KERNEL_LOOP(i, n) \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; \
       i < (n); \
       i += blockDim.x * gridDim.x)

// CUDA: use 512 threads per block
const int CAFFE_CUDA_NUM_THREADS = 512;

// CUDA: number of blocks for threads.
inline int CAFFE_GET_BLOCKS(const int N) {
  return (N + CAFFE_CUDA_NUM_THREADS - 1) / CAFFE_CUDA_NUM_THREADS;
}

namespace caffe {

template <typename Dtype>
__global__ void gemm_tn_kernel(const int nthreads, const int M, const int N,
    const int K, const Dtype alpha, const Dtype* A, const Dtype* B,
    const Dtype beta, Dtype* C) {
  CUDA_KERNEL_LOOP(index, nthreads) {
    const int m = index / N;
    const int n = index % N;
    Dtype sum = 0;
    for (int k = 0; k < K; ++k) {
      sum += A[k * M + m] * B[k * N + n];
    }
    C[index] = alpha * sum + beta * C[index];
  }
}

template <typename Dtype>
void caffe_gpu_gemm_tn_naive(const int M, const int N, const int K,
    const Dtype alpha, const Dtype* A, const Dtype* B, const Dtype beta,
    Dtype* C) {
  const int nthreads = M * N;
  // NOLINT_NEXT_LINE(whitespace/operators)
  gemm_tn_kernel<Dtype><<<CAFFE_GET_BLOCKS(nthreads), CAFFE_CUDA_NUM_THREADS>>>(
      nthreads, M, N, K, alpha, A, B, beta, C);
}

template void caffe_gpu_gemm_tn_naive<double>(const int M, const int N,
    const int K, const double alpha, const double* A, const double* B,
    const double beta, double* C);

}  // namespace caffe
