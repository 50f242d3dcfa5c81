// style: image-processing course "convolution with constant memory" lab; 5x5 Gaussian weights in a __constant__ float d_weights[KWIDTH*KWIDTH] filled with cudaMemcpyToSymbol, nested loops over taps ky/kx from -KRADIUS..KRADIUS, clamp-to-edge via a __device__ clampi helper, host main with cudaMalloc/cudaMemcpy
// launch: grid cdiv(width, 16), cdiv(height, 16) block 16, 16
// sizes: width=101 height=83
// expect: stencil-tile|stencil-window
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define KRADIUS 2
#define KWIDTH (2 * KRADIUS + 1)

__constant__ float d_weights[KWIDTH * KWIDTH];

__device__ __forceinline__ int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

__global__ void gaussian5x5(const float *src, float *dst, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;

    float acc = 0.0f;
    for (int ky = -KRADIUS; ky <= KRADIUS; ++ky) {
        for (int kx = -KRADIUS; kx <= KRADIUS; ++kx) {
            int sx = clampi(x + kx, 0, width - 1);
            int sy = clampi(y + ky, 0, height - 1);
            acc += d_weights[(ky + KRADIUS) * KWIDTH + (kx + KRADIUS)] * src[sy * width + sx];
        }
    }
    dst[y * width + x] = acc;
}

int main()
{
    const int width = 101, height = 83;
    const float binom[KWIDTH] = {1.f, 4.f, 6.f, 4.f, 1.f};
    float h_w[KWIDTH * KWIDTH];
    for (int i = 0; i < KWIDTH; ++i)
        for (int j = 0; j < KWIDTH; ++j)
            h_w[i * KWIDTH + j] = binom[i] * binom[j] / 256.0f;
    cudaMemcpyToSymbol(d_weights, h_w, sizeof(h_w));

    std::vector<float> h_src(width * height), h_dst(width * height);
    for (int i = 0; i < width * height; ++i) h_src[i] = (float)(i % 17) / 17.0f;

    float *d_src, *d_dst;
    size_t bytes = sizeof(float) * width * height;
    cudaMalloc(&d_src, bytes);
    cudaMalloc(&d_dst, bytes);
    cudaMemcpy(d_src, h_src.data(), bytes, cudaMemcpyHostToDevice);

    dim3 block(16, 16);
    dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
    gaussian5x5<<<grid, block>>>(d_src, d_dst, width, height);
    cudaMemcpy(h_dst.data(), d_dst, bytes, cudaMemcpyDeviceToHost);

    printf("dst[center] = %f\n", h_dst[(height / 2) * width + width / 2]);
    cudaFree(d_src);
    cudaFree(d_dst);
    return 0;
}
