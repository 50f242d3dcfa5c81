// y = x A with A row-major (M x N): one thread per column j, y[j] = sum_i A[i][j] x[i].
__global__ void colmatvec(float* y, const float* A, const float* x, int M, int N) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < N) {
    float sum = 0.0f;
    for (int i = 0; i < M; i++) {
      sum += A[i * N + j] * x[i];
    }
    y[j] = sum;
  }
}
