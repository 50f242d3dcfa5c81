// a product of two matrices shifted by one scalar each (a zero point, as integer-quantised GEMMs subtract):
// c[r][q] = sum_k (a[r][k] - za) (b[k][q] - zb)
__global__ void shifted_gemm(const float* a, const float* b, float* c, int M, int N, int K, float za, float zb) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= M || q >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += (a[r * K + k] - za) * (b[k * N + q] - zb);
  c[r * N + q] = acc;
}
