// launch: grid cdiv(nj, 32), cdiv(ni, 8) block 32, 8
// sizes: ni=300 nj=200 nk=150 alpha=1.5
// kernel: mm2_kernel1
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// PolyBench 2mm, first kernel: tmp = alpha * A B, the sum in tmp itself
typedef float DATA_TYPE;
__global__ void mm2_kernel1(int ni, int nj, int nk, DATA_TYPE alpha, DATA_TYPE* tmp, DATA_TYPE* A, DATA_TYPE* B) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if ((i < ni) && (j < nj)) {
    tmp[i * nj + j] = 0;
    int k;
    for (k = 0; k < nk; k++) tmp[i * nj + j] += alpha * A[i * nk + k] * B[k * nj + j];
  }
}
