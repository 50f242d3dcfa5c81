// style: image-processing tutorial Sobel edge filter with literal 3x3 weights, gradient magnitude sqrtf(gx*gx + gy*gy), border pixels set to 0
// launch: grid cdiv(w, 32), cdiv(h, 16) block 32, 16
// sizes: w=639 h=479
// expect: stencil-tile
__global__ void sobel_filter(const float *img, float *edges, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;

    if (x < 1 || y < 1 || x > w - 2 || y > h - 2) {
        edges[y * w + x] = 0.0f;
        return;
    }

    float gx = -1.0f * img[(y - 1) * w + (x - 1)] + 1.0f * img[(y - 1) * w + (x + 1)]
             - 2.0f * img[ y      * w + (x - 1)] + 2.0f * img[ y      * w + (x + 1)]
             - 1.0f * img[(y + 1) * w + (x - 1)] + 1.0f * img[(y + 1) * w + (x + 1)];

    float gy = -1.0f * img[(y - 1) * w + (x - 1)] - 2.0f * img[(y - 1) * w + x] - 1.0f * img[(y - 1) * w + (x + 1)]
             + 1.0f * img[(y + 1) * w + (x - 1)] + 2.0f * img[(y + 1) * w + x] + 1.0f * img[(y + 1) * w + (x + 1)];

    edges[y * w + x] = sqrtf(gx * gx + gy * gy);
}
