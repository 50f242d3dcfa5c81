// style: lecture-notes Jacobi sweep on a flattened ny x nx grid: 9-point stencil with literal weights (0.5 centre, 0.1 edges, 0.025 corners) addressed as id +/- 1 +/- nx, boundary copied through with an early return
// launch: grid cdiv(nx, 32), cdiv(ny, 8) block 32, 8
// sizes: nx=131 ny=67
// expect: stencil-tile|stencil-window|stencil-march
__global__ void jacobi9(const float *u, float *unew, int nx, int ny)
{
    int ix = blockIdx.x * blockDim.x + threadIdx.x;
    int iy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ix >= nx || iy >= ny) return;

    int id = iy * nx + ix;
    if (ix == 0 || iy == 0 || ix == nx - 1 || iy == ny - 1) {
        unew[id] = u[id];   // Dirichlet boundary
        return;
    }

    unew[id] = 0.5f   *  u[id]
             + 0.1f   * (u[id - 1] + u[id + 1] + u[id - nx] + u[id + nx])
             + 0.025f * (u[id - nx - 1] + u[id - nx + 1] + u[id + nx - 1] + u[id + nx + 1]);
}
