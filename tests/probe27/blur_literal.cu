// launch: grid cdiv(w, 16), cdiv(h, 16) block 16, 16
// sizes: w=640 h=480
// expect: stencil-tile
// 3x3 Gaussian blur with the weights in a local table, borders left alone
__global__ void gaussian3x3(const float* src, float* dst, int w, int h)
{
    const float k[3][3] = {{1.f / 16, 2.f / 16, 1.f / 16},
                           {2.f / 16, 4.f / 16, 2.f / 16},
                           {1.f / 16, 2.f / 16, 1.f / 16}};
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x > w - 2 || y > h - 2) return;
    float acc = 0.f;
#pragma unroll
    for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
        for (int dx = -1; dx <= 1; ++dx)
            acc += k[dy + 1][dx + 1] * src[(y + dy) * w + (x + dx)];
    dst[y * w + x] = acc;
}
