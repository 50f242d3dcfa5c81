// style: HPC-tutorial 3-D heat step: 3-D thread block, size_t linear index through an inline __device__ at() helper, coefficients c0/c1 as arguments, halo cells copied through
// launch: grid cdiv(nx, 8), cdiv(ny, 8), cdiv(nz, 4) block 8, 8, 4
// sizes: nx=37 ny=29 nz=23 c0=0.4 c1=0.1
// expect: stencil-tile|stencil-window|stencil-march
__device__ __forceinline__ size_t at(int i, int j, int k, int nx, int ny)
{
    return ((size_t)k * ny + j) * nx + i;
}

__global__ void heat7(const float* __restrict__ in, float* __restrict__ out,
                      int nx, int ny, int nz, float c0, float c1)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    const int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i >= nx || j >= ny || k >= nz) return;

    const size_t p = at(i, j, k, nx, ny);
    if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1) {
        out[p] = in[p];
        return;
    }

    out[p] = c0 * in[p]
           + c1 * (in[at(i - 1, j, k, nx, ny)] + in[at(i + 1, j, k, nx, ny)]
                 + in[at(i, j - 1, k, nx, ny)] + in[at(i, j + 1, k, nx, ny)]
                 + in[at(i, j, k - 1, nx, ny)] + in[at(i, j, k + 1, nx, ny)]);
}
