// launch: grid cdiv(nx * ny, 256) block 256
// sizes: nx=513 ny=300 h2=0.001
// expect: stencil-tile
// a 5-point Jacobi sweep with one flat thread index split into row and column
__global__ void jacobi_flat(const double *u, double *unew, const double *f, int nx, int ny, double h2)
{
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= nx * ny) return;
    int i = id / nx;
    int j = id % nx;
    if (i == 0 || j == 0 || i == ny - 1 || j == nx - 1) {
        unew[id] = u[id];
        return;
    }
    unew[id] = 0.25 * (u[id - 1] + u[id + 1] + u[id - nx] + u[id + nx] - h2 * f[id]);
}
