// launch: grid cdiv(N, 16), cdiv(M, 16), batch block 16, 16
// sizes: M=64 N=96 K=48 batch=3 strideA=3072 strideB=4608 strideC=6144
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// strided batched product with 64-bit strides and blockIdx.z as the batch
__global__ void bmm(const float* A, const float* B, float* C, int M, int N, int K, int batch,
                    long long strideA, long long strideB, long long strideC) {
  int b = blockIdx.z;
  int row = blockIdx.y * 16 + threadIdx.y;
  int col = blockIdx.x * 16 + threadIdx.x;
  if (row >= M || col >= N) return;
  const float* a = A + b * strideA;
  const float* bb = B + b * strideB;
  float v = 0;
  for (int k = 0; k < K; ++k) v += a[row * K + k] * bb[k * N + col];
  C[b * strideC + row * N + col] = v;
}
