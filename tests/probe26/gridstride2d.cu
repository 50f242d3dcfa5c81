// launch: grid 8, 8 block 16, 16
// sizes: M=300 N=200 K=150
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// 2-D grid-stride loops over the outputs
__global__ void mm_gs(const float* A, const float* B, float* C, int M, int N, int K) {
  for (int i = blockIdx.y * blockDim.y + threadIdx.y; i < M; i += blockDim.y * gridDim.y)
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < N; j += blockDim.x * gridDim.x) {
      float s = 0.f;
      for (int k = 0; k < K; ++k) s += A[i * K + k] * B[k * N + j];
      C[i * N + j] = s;
    }
}
