// style: image-processing Laplacian with clamp-to-edge boundaries (max/min on neighbour coordinates)
// launch: grid cdiv(width, 16), cdiv(height, 16) block 16, 16
// sizes: width=317 height=239
// expect: stencil-tile
__global__ void laplacian_clamp(const float* __restrict__ in, float* __restrict__ out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;

    int xm = max(x - 1, 0);
    int xp = min(x + 1, width - 1);
    int ym = max(y - 1, 0);
    int yp = min(y + 1, height - 1);

    out[y * width + x] = in[y * width + xm] + in[y * width + xp]
                       + in[ym * width + x] + in[yp * width + x]
                       - 4.0f * in[y * width + x];
}
