// 7-point Laplacian with 3-D thread blocks, the z coordinate spelled blockDim.z * blockIdx.z + threadIdx.z
__global__ void laplacian3d(float* __restrict__ lap, const float* __restrict__ f, int nx, int ny, int nz, float inv_h2) {
    const int i = threadIdx.x + blockIdx.x * blockDim.x;
    const int j = threadIdx.y + blockIdx.y * blockDim.y;
    const int k = blockDim.z * blockIdx.z + threadIdx.z;
    if (i < 1 || j < 1 || k < 1 || i >= nx - 1 || j >= ny - 1 || k >= nz - 1) return;
    const size_t s = (size_t)nx * ny;
    const size_t c = k * s + (size_t)j * nx + i;
    lap[c] = inv_h2 * (f[c - 1] + f[c + 1] + f[c - nx] + f[c + nx] + f[c - s] + f[c + s] - 6.0f * f[c]);
}
