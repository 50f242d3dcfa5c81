// style: OpenCV-flavoured 5x5 binomial GaussianBlur on an 8-bit single-channel Mat with a byte row `step`, clamp-to-edge through min(max(., 0), dim-1), integer weights 1-4-6-4-1 from a local table, (sum + 128) >> 8 rounding, uchar typedef
// launch: grid cdiv(cols, 32), cdiv(rows, 8) block 32, 8
// sizes: rows=67 cols=129 step=136
// expect: stencil-tile|stencil-window|stencil-march
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

typedef unsigned char uchar;

__global__ void gaussian5x5_u8(const uchar *src, uchar *dst, int rows, int cols, int step)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= cols || y >= rows)
        return;

    const int k[5] = { 1, 4, 6, 4, 1 };
    int sum = 0;
    for (int dy = -2; dy <= 2; ++dy) {
        const int yy = min(max(y + dy, 0), rows - 1);
        const uchar *row = src + yy * step;
        for (int dx = -2; dx <= 2; ++dx) {
            const int xx = min(max(x + dx, 0), cols - 1);
            sum += k[dy + 2] * k[dx + 2] * (int)row[xx];
        }
    }
    dst[y * step + x] = (uchar)((sum + 128) >> 8);
}

int main()
{
    const int rows = 67, cols = 129, step = 136;   // step rounded up to 8 bytes
    const size_t bytes = (size_t)rows * step;

    uchar *img = (uchar *)malloc(bytes);
    for (int y = 0; y < rows; ++y)
        for (int x = 0; x < step; ++x)
            img[y * step + x] = (uchar)(((x / 8) + (y / 8)) % 2 ? 255 : 0);   // checkerboard

    uchar *d_src, *d_dst;
    cudaMalloc(&d_src, bytes);
    cudaMalloc(&d_dst, bytes);
    cudaMemcpy(d_src, img, bytes, cudaMemcpyHostToDevice);

    dim3 block(32, 8);
    dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    gaussian5x5_u8<<<grid, block>>>(d_src, d_dst, rows, cols, step);
    cudaMemcpy(img, d_dst, bytes, cudaMemcpyDeviceToHost);
    printf("pixel(7,7)=%d pixel(8,8)=%d\n", img[7 * step + 7], img[8 * step + 8]);

    cudaFree(d_src); cudaFree(d_dst);
    free(img);
    return 0;
}
