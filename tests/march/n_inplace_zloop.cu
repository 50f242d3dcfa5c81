// negative: Gauss-Seidel in place, each thread walking z (neighbours below were just updated)
__global__ void gs_sweep(float* u, int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1) return;
    for (int k = 1; k < nz - 1; k++) {
        int c = (k * ny + j) * nx + i;
        u[c] = (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx] + u[c - nx * ny] + u[c + nx * ny]) / 6.0f;
    }
}
