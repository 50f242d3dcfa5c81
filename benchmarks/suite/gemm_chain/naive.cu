// D = (A B) C as two launches of one naive product: out = a b, one output per thread.
__global__ void matmul(float* out, const float* a, const float* b, int M, int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) sum += a[row * K + k] * b[k * N + col];
    out[row * N + col] = sum;
  }
}
