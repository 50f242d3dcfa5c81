// style: PyTorch-extension hand-rolled torch.cumsum(x, dim=-1) - template <typename scalar_t, typename acc_t> (acc_t the accumulate type), int64_t num_rows/row_size, one block per row (blockIdx.x == row, block-uniform early return), the row walked in blockDim.x-wide chunks: each chunk scanned Hillis-Steele in a __shared__ acc_t buffer (read / sync / add / sync), a running `carry` from the previous chunk's last element added on store, static_cast back to scalar_t; explicit instantiations
// launch: grid num_rows block 128
// sizes: num_rows=37 row_size=301
// template: float, double
// expect: block-scan|scan-library|row-scan
#include <cuda_runtime.h>
#include <cstdint>

#define CUMSUM_THREADS 128

template <typename scalar_t, typename acc_t>
__global__ void cumsum_lastdim_kernel(const scalar_t* __restrict__ self,
                                      scalar_t* __restrict__ result,
                                      int64_t num_rows,
                                      int64_t row_size)
{
  __shared__ acc_t buf[CUMSUM_THREADS];

  const int64_t row = blockIdx.x;
  if (row >= num_rows) return;

  const scalar_t* row_in = self + row * row_size;
  scalar_t* row_out = result + row * row_size;

  acc_t carry = acc_t(0);
  for (int64_t base = 0; base < row_size; base += blockDim.x) {
    const int64_t col = base + threadIdx.x;
    buf[threadIdx.x] = (col < row_size) ? static_cast<acc_t>(row_in[col]) : acc_t(0);
    __syncthreads();

    for (unsigned int offset = 1; offset < blockDim.x; offset <<= 1) {
      acc_t t = (threadIdx.x >= offset) ? buf[threadIdx.x - offset] : acc_t(0);
      __syncthreads();
      buf[threadIdx.x] += t;
      __syncthreads();
    }

    if (col < row_size) {
      row_out[col] = static_cast<scalar_t>(carry + buf[threadIdx.x]);
    }
    carry += buf[blockDim.x - 1];
    __syncthreads();
  }
}

template __global__ void cumsum_lastdim_kernel<float, double>(const float* __restrict__, float* __restrict__, int64_t, int64_t);
template __global__ void cumsum_lastdim_kernel<float, float>(const float* __restrict__, float* __restrict__, int64_t, int64_t);
template __global__ void cumsum_lastdim_kernel<double, double>(const double* __restrict__, double* __restrict__, int64_t, int64_t);
