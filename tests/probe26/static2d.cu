// launch: grid 32, 32 block 16, 16
// sizes: none=1
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
#define N 512
__global__ void matmul2d(float A[N][N], float B[N][N], float C[N][N]) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N && j < N) {
    float s = 0;
    for (int k = 0; k < N; k++) s += A[i][k] * B[k][j];
    C[i][j] = s;
  }
}
