// launch: grid cdiv(n, 32), cdiv(n, 8) block 32, 8
// sizes: n=700
// expect: stencil-tile
// a Jacobi sweep written C89 style with its indices declared first and reassigned
__global__ void jacobi(float *unew, float *u, int n)
{
    int i, j, idx;
    i = blockIdx.y * blockDim.y + threadIdx.y;
    j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 1 || i >= n - 1) return;
    if (j < 1 || j >= n - 1) return;
    idx = i * n + j;
    unew[idx] = 0.25f * (u[idx - n] + u[idx + n] + u[idx - 1] + u[idx + 1]);
}
