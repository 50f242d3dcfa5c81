// C = A B on bf16 over a flat index, the row on the fast index; fp32 accumulation through casts.
#include <cuda_bf16.h>

typedef __nv_bfloat16 bf16;

__global__ void gemm_bf16(bf16* C, const bf16* A, const bf16* B, int M, int N, int K) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= M * N) return;
  const int i = t % M, j = t / M;
  float s = 0;
  for (int k = 0; k < K; k++) s += (float)A[i * K + k] * (float)B[k * N + j];
  C[i * N + j] = (bf16)s;
}
