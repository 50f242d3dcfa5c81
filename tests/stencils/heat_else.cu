// A heat step as class assignments write it: a flat index split with % and /, the border copied in the
// `if` branch and the interior computed in the `else` (no return between them).
__global__ void heat_else(const float *T, float *Tnew, int nx, int ny, float r)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= nx * ny) return;
    int x = gid % nx;
    int y = gid / nx;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
        Tnew[gid] = T[gid];  // the border kept
    } else {
        float center = T[gid];
        float lap = T[gid - 1] + T[gid + 1] + T[gid - nx] + T[gid + nx] - 4.0f * center;
        Tnew[gid] = center + r * lap;
    }
}
