// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16 shared 2048
// sizes: M=1000 N=900 K=700
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
#define T 16
__global__ void mm_dyn(const float* A, const float* B, float* C, int M, int N, int K) {
  extern __shared__ float smem[];
  float* As = smem;
  float* Bs = smem + T * T;
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0.0f;
  for (int t = 0; t < (K + T - 1) / T; ++t) {
    As[ty * T + tx] = (row < M && t * T + tx < K) ? A[row * K + t * T + tx] : 0.0f;
    Bs[ty * T + tx] = (col < N && t * T + ty < K) ? B[(t * T + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < T; ++i) acc += As[ty * T + i] * Bs[i * T + tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}
