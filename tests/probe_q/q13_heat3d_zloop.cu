// style: Micikevicius-style 3-D finite-difference starter (before the register queue); 2-D thread grid over (x, y) with each thread walking z in a for loop, 7-point heat update with c0/c1 coefficients, boundary planes copied, size_t plane stride
// launch: grid cdiv(nx, 32), cdiv(ny, 4) block 32, 4
// sizes: nx=37 ny=29 nz=23 c0=0.4 c1=0.1
// expect: stencil-march|stencil-tile

__global__ void heat7_zloop(const float* __restrict__ in, float* __restrict__ out,
                            int nx, int ny, int nz, float c0, float c1)
{
    int ix = blockIdx.x * blockDim.x + threadIdx.x;
    int iy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ix >= nx || iy >= ny) return;

    const size_t stride_y = (size_t)nx;
    const size_t stride_z = (size_t)nx * ny;
    const bool edge = (ix == 0 || iy == 0 || ix == nx - 1 || iy == ny - 1);

    for (int iz = 0; iz < nz; ++iz) {
        size_t c = iz * stride_z + iy * stride_y + ix;
        if (edge || iz == 0 || iz == nz - 1) {
            out[c] = in[c];
            continue;
        }
        out[c] = c0 * in[c]
               + c1 * (in[c - 1] + in[c + 1]
                     + in[c - stride_y] + in[c + stride_y]
                     + in[c - stride_z] + in[c + stride_z]);
    }
}
