// launch: grid cdiv(N, 32), M block 32
// sizes: M N K (K at most 64)
// reference: C = A @ B, a block per row of C whose row of A is first cached in shared memory
// recognise: the cache read from global memory (unshare_preloads), the row's extent the parameter M
__global__ void mm_rowcache(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float arow[64];
  const int r = blockIdx.y;
  for (int i = threadIdx.x; i < K; i += blockDim.x) arow[i] = A[r * K + i];
  __syncthreads();
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < N) {
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += arow[k] * B[k * N + c];
    C[r * N + c] = s;
  }
}
