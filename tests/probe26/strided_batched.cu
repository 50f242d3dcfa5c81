// launch: grid cdiv(N, 16), cdiv(M, 16), batch block 16, 16
// sizes: M=200 N=300 K=100 batch=4 strideA=20000 strideB=30000 strideC=60000
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
// cuBLAS-style strided batched GEMM, strides passed in
__global__ void sgemm_strided_batched(const float* A, const float* B, float* C, int M, int N, int K,
                                      long strideA, long strideB, long strideC, int batch) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int b = blockIdx.z;
  if (row < M && col < N && b < batch) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += A[b * strideA + row * K + k] * B[b * strideB + k * N + col];
    C[b * strideC + row * N + col] = acc;
  }
}
