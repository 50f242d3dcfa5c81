// style: StackOverflow "simple 3x3 box blur" answer; IDX(x,y,w) macro, early return, edges clamped with integer min(max()) inside a dy/dx double loop, main() with cudaMemcpy
// launch: grid cdiv(W, 16), cdiv(H, 16) block 16, 16
// sizes: W=131 H=67
// expect: stencil-tile|stencil-window
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define IDX(x, y, w) ((y) * (w) + (x))

__global__ void boxBlur3x3(const float *src, float *dst, int W, int H)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H) return;

    float acc = 0.0f;
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            int xx = min(max(x + dx, 0), W - 1);
            int yy = min(max(y + dy, 0), H - 1);
            acc += src[IDX(xx, yy, W)];
        }
    }
    dst[IDX(x, y, W)] = acc * (1.0f / 9.0f);
}

int main()
{
    const int W = 131, H = 67;
    size_t bytes = (size_t)W * H * sizeof(float);
    float *h_img = (float *)malloc(bytes);
    float *h_out = (float *)malloc(bytes);
    for (int i = 0; i < W * H; ++i) h_img[i] = (float)(rand() % 256);

    float *d_img, *d_out;
    cudaMalloc(&d_img, bytes);
    cudaMalloc(&d_out, bytes);
    cudaMemcpy(d_img, h_img, bytes, cudaMemcpyHostToDevice);

    dim3 block(16, 16);
    dim3 grid((W + 15) / 16, (H + 15) / 16);
    boxBlur3x3<<<grid, block>>>(d_img, d_out, W, H);
    cudaDeviceSynchronize();

    cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost);
    printf("out[0]=%f out[last]=%f\n", h_out[0], h_out[W * H - 1]);

    cudaFree(d_img); cudaFree(d_out);
    free(h_img); free(h_out);
    return 0;
}
