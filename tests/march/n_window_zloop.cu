// negative: the kernel keeps its own register window (below / centre / above carried between planes)
__global__ void stencil_regs(const float* in, float* out, int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1) return;
    int s = nx * ny, c = j * nx + i;
    float below = in[c], centre = in[c + s];
    for (int k = 1; k < nz - 1; k++) {
        float above = in[c + (k + 1) * s];
        int p = c + k * s;
        out[p] = 0.5f * centre + 0.1f * (below + above) + 0.05f * (in[p - 1] + in[p + 1] + in[p - nx] + in[p + nx]);
        below = centre;
        centre = above;
    }
}
