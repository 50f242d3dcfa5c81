// style: seidel-2d made out-of-place for the GPU (9-point average of A into B, 1-D launch with i = idx / n, j = idx % n)
// launch: grid cdiv(n * n, 256) block 256
// sizes: n=209
// expect: stencil-tile
__global__ void seidel_step(const float *A, float *B, int n)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int i = idx / n;
    int j = idx % n;
    if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1) {
        B[i * n + j] = (A[(i - 1) * n + j - 1] + A[(i - 1) * n + j] + A[(i - 1) * n + j + 1]
                      + A[i * n + j - 1]       + A[i * n + j]       + A[i * n + j + 1]
                      + A[(i + 1) * n + j - 1] + A[(i + 1) * n + j] + A[(i + 1) * n + j + 1]) / 9.0f;
    }
}
