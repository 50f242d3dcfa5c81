// launch: grid n / 16, rows / 16 block 16, 16
// sizes: k n rows
// reference: c = a @ b, staged through shared memory; the row count is known only from the grid
// recognise: rows y, columns x (after unstaging)
template <int TILE> __global__ void gemm_staged(const float* a, const float* b, float* c, int k, int n) {
  __shared__ float sa[TILE][TILE];
  __shared__ float sb[TILE][TILE];
  const int r = blockIdx.y * TILE + threadIdx.y;
  const int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < k; t += TILE) {
    sa[threadIdx.y][threadIdx.x] = a[r * k + t + threadIdx.x];
    sb[threadIdx.y][threadIdx.x] = b[(t + threadIdx.y) * n + col];
    __syncthreads();
    for (int e = 0; e < TILE; ++e) acc += sa[threadIdx.y][e] * sb[e][threadIdx.x];
    __syncthreads();
  }
  c[r * n + col] = acc;
}

template __global__ void gemm_staged<16>(const float*, const float*, float*, int, int);
