// style: PyTorch C++/CUDA extension -- scalar_t template, __restrict__ pointers, batch walked by an outer loop inside the kernel
// launch: grid cdiv(N, 32), cdiv(M, 4) block 32, 4
// sizes: batch=3 M=67 N=129 K=45
// template: float
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

template <typename scalar_t>
__global__ void bmm_naive_kernel(const scalar_t* __restrict__ x,
                                 const scalar_t* __restrict__ w,
                                 scalar_t* __restrict__ out,
                                 const int batch, const int M, const int N, const int K) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  const int m = blockIdx.y * blockDim.y + threadIdx.y;
  if (m >= M || n >= N) {
    return;
  }
  for (int bi = 0; bi < batch; ++bi) {
    const scalar_t* xb = x + (long)bi * M * K;
    const scalar_t* wb = w + (long)bi * K * N;
    scalar_t acc = 0;
    for (int kk = 0; kk < K; ++kk) {
      acc += xb[m * K + kk] * wb[kk * N + n];
    }
    out[(long)bi * M * N + m * N + n] = acc;
  }
}

template __global__ void bmm_naive_kernel<float>(const float* __restrict__, const float* __restrict__,
                                                 float* __restrict__, const int, const int, const int, const int);
