// launch: grid cdiv(N, 8), cdiv(M, 8) block 8, 8 shared 512
// sizes: M N K
// reference: C = A @ B staged through dynamic shared memory cut in two by pointers
// recognise: the pointers read as two static arrays (static_shared_regions), then unstaged
#define TS 8
__global__ void mm_dynshared(const float* A, const float* B, float* C, int M, int N, int K) {
  extern __shared__ float buf[];
  float* sA = buf;
  float* sB = &buf[TS * TS];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TS + ty, col = blockIdx.x * TS + tx;
  float acc = 0.0f;
  for (int t = 0; t < (K + TS - 1) / TS; ++t) {
    sA[ty * TS + tx] = (row < M && t * TS + tx < K) ? A[row * K + t * TS + tx] : 0.0f;
    sB[ty * TS + tx] = (col < N && t * TS + ty < K) ? B[(t * TS + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < TS; ++i) acc += sA[ty * TS + i] * sB[i * TS + tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}
