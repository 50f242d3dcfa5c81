// 3-D Laplacian in double with its weights in a small array (centre, x, y, z), the z loop written with <=
__global__ void laplacian(double *out, const double *u, const double *w, int nx, int ny, int nz)
{
    const int ix = threadIdx.x + blockIdx.x * blockDim.x;
    const int iy = threadIdx.y + blockIdx.y * blockDim.y;
    if (ix < 1 || iy < 1 || ix > nx - 2 || iy > ny - 2)
        return;
    const size_t plane = (size_t)nx * ny;
    for (int iz = 1; iz <= nz - 2; ++iz) {
        size_t c = iz * plane + (size_t)iy * nx + ix;
        out[c] = w[0] * u[c] + w[1] * (u[c - 1] + u[c + 1]) + w[2] * (u[c - nx] + u[c + nx])
               + w[3] * (u[c - plane] + u[c + plane]);
    }
}
