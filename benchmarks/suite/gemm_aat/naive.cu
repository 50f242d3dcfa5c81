// C = A A^T, one output per thread: row i on y, column j on x, so the second operand's row,
// a[j * K + k], is K floats apart between neighbouring threads.
__global__ void gram(float* C, const float* A, int N, int K) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N && j < N) {
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += A[i * K + k] * A[j * K + k];
    C[i * N + j] = s;
  }
}
