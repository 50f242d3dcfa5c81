// launch: grid cdiv(N, 256), M block 256 shared 4096
// sizes: M=512 N=1024 K=1024
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
// a row of A cached in shared memory per block, each thread one column
__global__ void mm_rowcache(const float* A, const float* B, float* C, int M, int N, int K) {
  extern __shared__ float arow[];
  int r = blockIdx.y;
  for (int i = threadIdx.x; i < K; i += blockDim.x) arow[i] = A[r * K + i];
  __syncthreads();
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < N) {
    float s = 0;
    for (int k = 0; k < K; ++k) s += arow[k] * B[k * N + c];
    C[r * N + c] = s;
  }
}
