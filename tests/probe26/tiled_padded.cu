// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=300 N=200 K=150 alpha=1.5 beta=0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
#define BS 16
__global__ void gemm_smem_pad(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B, float beta, float* __restrict__ C) {
  __shared__ float As[BS][BS + 1];
  __shared__ float Bs[BS][BS + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * BS + ty, col = blockIdx.x * BS + tx;
  float sum = 0.f;
  for (int k0 = 0; k0 < K; k0 += BS) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.f;
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BS; ++kk) sum += As[ty][kk] * Bs[kk][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = alpha * sum + beta * C[row * N + col];
}
