// launch: grid cdiv(n, 16), cdiv(n, 16) block 16, 16
// sizes: n=1000
// expect: stencil-tile
// PolyBench-GPU style Jacobi 2-D step with row pointers
__global__ void jacobi2d_kernel(int n, const float* A, float* B) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1) {
    const float* up = A + (i - 1) * n;
    const float* mid = A + i * n;
    const float* down = A + (i + 1) * n;
    B[i * n + j] = 0.2f * (mid[j] + mid[j - 1] + mid[j + 1] + up[j] + down[j]);
  }
}
