// launch: grid cdiv(N, 32), cdiv(M, 32) block 32, 32
// sizes: M=300 N=200 K=150
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
#define TS 32
__global__ void mm_tiled_cg(const float* A, const float* B, float* C, int M, int N, int K) {
  cg::thread_block block = cg::this_thread_block();
  __shared__ float sA[TS][TS];
  __shared__ float sB[TS][TS];
  int row = blockIdx.y * TS + threadIdx.y, col = blockIdx.x * TS + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (K + TS - 1) / TS; ++t) {
    int ka = t * TS + threadIdx.x, kb = t * TS + threadIdx.y;
    sA[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
    sB[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
    block.sync();
    for (int k = 0; k < TS; ++k) acc += sA[threadIdx.y][k] * sB[k][threadIdx.x];
    block.sync();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}
