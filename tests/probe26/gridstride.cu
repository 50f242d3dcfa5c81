// launch: grid 1024 block 256
// sizes: M=1000 N=900 K=700
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
__global__ void mm_gridstride(const float* a, const float* b, float* c, int M, int N, int K) {
  for (int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < M * N; idx += gridDim.x * blockDim.x) {
    int r = idx / N, q = idx % N;
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += a[r * K + k] * b[k * N + q];
    c[idx] = s;
  }
}
