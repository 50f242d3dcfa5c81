// style: 3-D 7-point Laplacian-style stencil (PMPP ch.8 naive): one thread per grid point from a 3-D grid, coefficients c0/c1 as arguments, interior only
// launch: grid cdiv(nx, 32), cdiv(ny, 4), cdiv(nz, 4) block 32, 4, 4
// sizes: nx=131 ny=77 nz=59 c0=-6.0 c1=1.0
// expect: stencil-tile|stencil-march
__global__ void stencil_7pt(const float* __restrict__ in, float* __restrict__ out,
                            int nx, int ny, int nz, float c0, float c1)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z * blockDim.z + threadIdx.z;

    if (i >= 1 && i < nx - 1 && j >= 1 && j < ny - 1 && k >= 1 && k < nz - 1) {
        int plane = nx * ny;
        int c = k * plane + j * nx + i;
        out[c] = c0 * in[c]
               + c1 * (in[c - 1] + in[c + 1]
                     + in[c - nx] + in[c + nx]
                     + in[c - plane] + in[c + plane]);
    }
}
