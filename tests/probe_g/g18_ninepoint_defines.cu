// style: 2-D 9-point smoothing stencil with #define'd center/edge/corner weights; boundary cells copied through, row/col from 2-D thread index
// launch: grid cdiv(nx, 16), cdiv(ny, 16) block 16, 16
// sizes: nx=513 ny=387
// expect: stencil-tile
#define W_CENTER 0.5f
#define W_EDGE   0.1f
#define W_CORNER 0.025f

__global__ void smooth9(const float *u, float *unew, int nx, int ny)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col >= nx || row >= ny) return;

    int id = row * nx + col;
    if (row == 0 || row == ny - 1 || col == 0 || col == nx - 1) {
        unew[id] = u[id];
        return;
    }

    float edges   = u[id - 1] + u[id + 1] + u[id - nx] + u[id + nx];
    float corners = u[id - nx - 1] + u[id - nx + 1] + u[id + nx - 1] + u[id + nx + 1];
    unew[id] = W_CENTER * u[id] + W_EDGE * edges + W_CORNER * corners;
}
