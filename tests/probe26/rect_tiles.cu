// launch: grid cdiv(N, 32), cdiv(M, 16) block 32, 16
// sizes: M=300 N=200 K=150
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
#define TM 16
#define TN 32
#define TK 16
__global__ void mm_rect(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[TM][TK];
  __shared__ float Bs[TK][TN];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TM + ty, col = blockIdx.x * TN + tx;
  float v = 0.0f;
  for (int t = 0; t < K; t += TK) {
    if (tx < TK) As[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.0f;
    Bs[ty][tx] = (t + ty < K && col < N) ? B[(t + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TK; ++k) v += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = v;
}
