// 27-point box filter (mean of the 3 x 3 x 3 neighbourhood), loops over the taps, a z loop per thread
__global__ void box27(const float* in, float* out, int NX, int NY, int NZ)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= NX - 1 || y >= NY - 1) return;
    for (int z = 1; z < NZ - 1; z++) {
        float sum = 0.0f;
        for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++)
                    sum += in[((z + dz) * NY + (y + dy)) * NX + (x + dx)];
        out[(z * NY + y) * NX + x] = sum * (1.0f / 27.0f);
    }
}
