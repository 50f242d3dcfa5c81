// fourth-order in z: the planes two above and below are read too (a window of five planes)
__global__ void diffuse_z4(float *dst, const float *src, int nx, int ny, int nz, float cz1, float cz2, float cxy)
{
    int gx = blockIdx.x * blockDim.x + threadIdx.x;
    int gy = blockIdx.y * blockDim.y + threadIdx.y;
    if (gx >= 1 && gx < nx - 1 && gy >= 1 && gy < ny - 1) {
        int stride = nx * ny;
        for (int gz = 2; gz < nz - 2; gz++) {
            int p = gz * stride + gy * nx + gx;
            dst[p] = src[p] + cz1 * (src[p - stride] + src[p + stride]) + cz2 * (src[p - 2 * stride] + src[p + 2 * stride])
                   + cxy * (src[p - 1] + src[p + 1] + src[p - nx] + src[p + nx]);
        }
    }
}
