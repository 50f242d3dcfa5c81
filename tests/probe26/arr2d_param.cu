// launch: grid cdiv(512, 16), cdiv(512, 16) block 16, 16
// sizes: n=512
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
#define NN 512
__global__ void mm2d(const float (*A)[NN], const float (*B)[NN], float (*C)[NN]) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < NN && j < NN) {
    float s = 0;
    for (int k = 0; k < NN; ++k) s += A[i][k] * B[k][j];
    C[i][j] = s;
  }
}
