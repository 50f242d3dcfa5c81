// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=257 N=129 K=65
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// element access through a small inline helper
__device__ __forceinline__ float at(const float* p, int r, int c, int ld) { return p[r * ld + c]; }
__global__ void mm_helper(const float* A, const float* B, float* C, int M, int N, int K) {
  int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < M && c < N) {
    float acc = 0.f;
#pragma unroll 4
    for (int t = 0; t < K; t++) acc += at(A, r, t, K) * at(B, t, c, N);
    C[r * N + c] = acc;
  }
}
