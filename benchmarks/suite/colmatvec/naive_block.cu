// y = x A, a block per column: the threads share the column's rows and add their sums in a tree.
#define THREADS 256

__global__ void colmatvec(float* y, const float* A, const float* x, int M, int N) {
  __shared__ float partial[THREADS];
  int col = blockIdx.x;
  int tid = threadIdx.x;
  float s = 0.0f;
  for (int i = tid; i < M; i += blockDim.x) {
    s += A[(size_t)i * N + col] * x[i];
  }
  partial[tid] = s;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) partial[tid] += partial[tid + stride];
    __syncthreads();
  }
  if (tid == 0) y[col] = partial[0];
}
