// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=300 N=200
// kernel: mm_k
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
template <int K>
__global__ void mm_k(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float s = 0.f;
#pragma unroll 8
  for (int k = 0; k < K; ++k) s += A[row * K + k] * B[k * N + col];
  C[row * N + col] = s;
}
template __global__ void mm_k<64>(const float*, const float*, float*, int, int);
