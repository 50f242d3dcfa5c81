// style: NHWC -> NCHW permute written from the input side (thread per input element, scattered writes), host main
// launch: grid cdiv(N * H * W * C, 128) block 128
// sizes: N=3 H=37 W=41 C=53
// expect: transpose-tile
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void nhwc_to_nchw(const float *src, float *dst, int N, int H, int W, int C)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N * H * W * C) {
        int c = i % C;
        int w = (i / C) % W;
        int h = (i / (C * W)) % H;
        int n = i / (C * W * H);
        dst[n * C * H * W + c * H * W + h * W + w] = src[i];
    }
}

int main()
{
    const int N = 3, H = 37, W = 41, C = 53;
    const int total = N * H * W * C;
    float *h = (float *)malloc(total * sizeof(float));
    for (int i = 0; i < total; i++) h[i] = (float)i;
    float *d_src, *d_dst;
    cudaMalloc(&d_src, total * sizeof(float));
    cudaMalloc(&d_dst, total * sizeof(float));
    cudaMemcpy(d_src, h, total * sizeof(float), cudaMemcpyHostToDevice);
    nhwc_to_nchw<<<(total + 127) / 128, 128>>>(d_src, d_dst, N, H, W, C);
    cudaMemcpy(h, d_dst, total * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%f\n", h[1]);
    cudaFree(d_src); cudaFree(d_dst);
    free(h);
    return 0;
}
