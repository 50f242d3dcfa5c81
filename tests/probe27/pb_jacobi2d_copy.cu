// launch: grid cdiv(n, 32), cdiv(n, 8) block 32, 8
// sizes: n=1000
// expect: stencil-tile
/* PolyBench/ACC style second Jacobi kernel with the copy and a lower-bound guard */
#define N_MAX 4096
__global__ void jacobi2d_kernel(int n, float *A, float *B)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i > 0 && j > 0 && i < n - 1 && j < n - 1)
        B[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + j - 1] + A[i * n + j + 1] + A[(i + 1) * n + j] + A[(i - 1) * n + j]);
}
