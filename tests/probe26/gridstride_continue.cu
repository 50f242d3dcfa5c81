// launch: grid 120 block 256
// sizes: M=60 N=300 K=40
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
__global__ void mm_gs(const float* A, const float* B, float* C, int M, int N, int K) {
  for (int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < M * N; idx += blockDim.x * gridDim.x) {
    int r = idx / N, c = idx % N;
    float s = 0.f;
    for (int k = 0; k < K; ++k) s += A[r * K + k] * B[k * N + c];
    C[idx] = s;
  }
}
