// launch: grid 3, 3 block 16, 16
// sizes: (fixed by the source: 40 x 40)
// reference: C = A @ B with every matrix a 2-D array parameter
// recognise: A[i][k] through a flat pointer to the first element (the signature kept)
#define W 40
__global__ void mm_arrays(const float A[W][W], const float B[W][W], float C[W][W]) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < W && j < W) {
    float s = 0;
    for (int k = 0; k < W; k++) s += A[i][k] * B[k][j];
    C[i][j] = s;
  }
}
