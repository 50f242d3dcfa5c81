// style: HPC mini-app 3-D heat step, 2-D grid over (x,y) with each thread marching z; long long flat index reassigned by += plane
// launch: grid cdiv(nx, 16), cdiv(ny, 16) block 16, 16
// sizes: nx=37 ny=29 nz=23 r=0.1
// expect: stencil-tile|stencil-window|stencil-march

__global__ void heat3d_step(const float* __restrict__ u, float* __restrict__ un,
                            int nx, int ny, int nz, float r)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;

    const long long plane = (long long)nx * ny;
    long long c = plane + (long long)y * nx + x;   // z = 1
    int z = 1;
    while (z < nz - 1) {
        float lap = u[c - 1] + u[c + 1]
                  + u[c - nx] + u[c + nx]
                  + u[c - plane] + u[c + plane]
                  - 6.0f * u[c];
        un[c] = u[c] + r * lap;
        c += plane;
        ++z;
    }
}
