// launch: grid 7 block 64
// sizes: M N K
// reference: c = a @ b, a grid-stride loop over the flat outputs (any grid)
// recognise: rows and columns from the flat index, after the loop is read one output per thread
__global__ void mm_stride(const float* a, const float* b, float* c, int M, int N, int K) {
  for (int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < M * N; idx += gridDim.x * blockDim.x) {
    int r = idx / N, q = idx % N;
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += a[r * K + k] * b[k * N + q];
    c[idx] = s;
  }
}
