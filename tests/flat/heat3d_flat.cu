// explicit heat step on a 3-D grid, one thread per cell: k, j, i through a reassigned remainder (double)
__global__ void heat3d(const double* T, double* Tn, int nx, int ny, int nz, double alpha) {
    size_t id = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= (size_t)nx * ny * nz) return;
    int k = id / (nx * ny);
    size_t r = id % (nx * ny);
    int j = r / nx;
    int i = r % nx;
    if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1) return;
    Tn[id] = T[id] + alpha * (T[id - 1] + T[id + 1] + T[id - nx] + T[id + nx] + T[id - nx * ny] + T[id + nx * ny]
                              - 6.0 * T[id]);
}
