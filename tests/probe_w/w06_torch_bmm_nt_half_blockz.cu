// style: PyTorch extension replacement for torch.bmm(batch1, batch2.transpose(1, 2)) on at::Half data as raw __half pointers: batch on blockIdx.z with batch offsets derived from the leading dimensions, float accumulator through __half2float, result stored with __float2half_rn
// launch: grid cdiv(N, 16), cdiv(M, 16), batch block 16, 16
// sizes: batch=3 M=45 N=53 K=67 lda=67 ldb=67 ldc=53
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cstdint>

// result[b] (M x N) = batch1[b] (M x K) @ batch2[b]^T, batch2[b] is (N x K)
__global__ void bmm_nt_half_kernel(const __half* __restrict__ batch1,
                                   const __half* __restrict__ batch2,
                                   __half* __restrict__ result,
                                   int batch, int M, int N, int K,
                                   int lda, int ldb, int ldc) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int bz = blockIdx.z;
  if (bz >= batch || row >= M || col >= N) return;

  const __half* a = batch1 + static_cast<int64_t>(bz) * M * lda;
  const __half* b = batch2 + static_cast<int64_t>(bz) * N * ldb;
  __half* c = result + static_cast<int64_t>(bz) * M * ldc;

  float acc = 0.f;
  for (int k = 0; k < K; ++k) {
    acc += __half2float(a[row * lda + k]) * __half2float(b[col * ldb + k]);
  }
  c[row * ldc + col] = __float2half_rn(acc);
}

void bmm_nt_half_cuda(const __half* batch1, const __half* batch2, __half* result,
                      int batch, int M, int N, int K, cudaStream_t stream) {
  dim3 threads(16, 16, 1);
  dim3 blocks((N + 15) / 16, (M + 15) / 16, batch);
  bmm_nt_half_kernel<<<blocks, threads, 0, stream>>>(batch1, batch2, result, batch, M, N, K, K, K, N);
}
