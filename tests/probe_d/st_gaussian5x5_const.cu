// launch: grid cdiv(width, 16), cdiv(height, 16) block 16, 16
// sizes: width=380 height=270 pitch=384
// expect: stencil-tile
// 5x5 Gaussian blur with __constant__ weights and clamp-to-edge addressing on a pitched float image (OpenCV-port style)
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>

#define KSIZE 5
#define KRAD  2

__constant__ float c_gauss[KSIZE * KSIZE];

__device__ inline int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

__global__ void gaussian5x5(const float* in, float* out, int width, int height, int pitch)
{
    const unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= (unsigned)width || y >= (unsigned)height) return;

    float sum = 0.0f;
    #pragma unroll
    for (int dy = -KRAD; dy <= KRAD; ++dy) {
        const int yy = clampi((int)y + dy, 0, height - 1);
        const float* row = in + yy * pitch;
        #pragma unroll
        for (int dx = -KRAD; dx <= KRAD; ++dx) {
            const int xx = clampi((int)x + dx, 0, width - 1);
            sum += c_gauss[(dy + KRAD) * KSIZE + (dx + KRAD)] * row[xx];
        }
    }
    out[y * pitch + x] = sum;
}

static void make_gaussian(float* k, float sigma)
{
    float s = 0.f;
    for (int i = 0; i < KSIZE; ++i)
        for (int j = 0; j < KSIZE; ++j) {
            float v = expf(-((i - KRAD) * (i - KRAD) + (j - KRAD) * (j - KRAD)) / (2.f * sigma * sigma));
            k[i * KSIZE + j] = v; s += v;
        }
    for (int i = 0; i < KSIZE * KSIZE; ++i) k[i] /= s;
}

int main(int argc, char** argv)
{
    int width  = argc > 1 ? atoi(argv[1]) : 380;
    int height = argc > 2 ? atoi(argv[2]) : 270;
    int pitch  = (width + 31) / 32 * 32;

    float hk[KSIZE * KSIZE];
    make_gaussian(hk, 1.2f);
    cudaMemcpyToSymbol(c_gauss, hk, sizeof(hk));

    float *d_in, *d_out;
    cudaMalloc(&d_in, sizeof(float) * pitch * height);
    cudaMalloc(&d_out, sizeof(float) * pitch * height);
    cudaMemset(d_in, 0, sizeof(float) * pitch * height);

    dim3 block(16, 16);
    dim3 grid((width + 15) / 16, (height + 15) / 16);
    gaussian5x5<<<grid, block>>>(d_in, d_out, width, height, pitch);
    cudaDeviceSynchronize();
    printf("%s\n", cudaGetErrorString(cudaGetLastError()));
    cudaFree(d_in); cudaFree(d_out);
    return 0;
}
