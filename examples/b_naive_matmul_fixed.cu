// b_naive_matmul_fixed.cu -- C = A * B with half inputs and float accumulation (row-major,
// A is M x K, B is K x N); M, N and K must be multiples of 16.
// Fixed twin of b_naive_matmul.cu: each warp computes one 16x16 tile of C with
// nvcuda::wmma 16x16x16 fragments, which nvcc compiles to HMMA tensor-core instructions.
// matmul-without-tensor-cores stays silent here.
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

__global__ void matmul(const half* __restrict__ A, const half* __restrict__ B, float* __restrict__ C,
                       int M, int N, int K) {
  int tile_row = (blockIdx.y * blockDim.y + threadIdx.y) * 16;
  int tile_col = (blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32) * 16;
  if (tile_row >= M || tile_col >= N) return;  // uniform per warp
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(a, A + (size_t)tile_row * K + k, K);
    wmma::load_matrix_sync(b, B + (size_t)k * N + tile_col, N);
    wmma::mma_sync(acc, a, b, acc);
  }
  wmma::store_matrix_sync(C + (size_t)tile_row * N + tile_col, acc, N, wmma::mem_row_major);
}

void launch_matmul(const half* A, const half* B, float* C, int M, int N, int K) {
  dim3 grid((N / 16 + 3) / 4, (M / 16 + 3) / 4);
  matmul<<<grid, dim3(128, 4)>>>(A, B, C, M, N, K);
}
