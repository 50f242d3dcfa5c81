// style: Stack Overflow "9-point stencil with weights in constant memory" question; __constant__ float d_w[9], double loop over dy/dx, interior only
// launch: grid cdiv(width, 32), cdiv(height, 8) block 32, 8
// sizes: width=221 height=133
// expect: stencil-tile
#include <cuda_runtime.h>

// default weights; the host usually overwrites them with cudaMemcpyToSymbol(d_w, h_w, 9*sizeof(float))
__constant__ float d_w[9] = { 0.05f, 0.1f, 0.05f,
                              0.1f,  0.4f, 0.1f,
                              0.05f, 0.1f, 0.05f };

__global__ void stencil9(float *out, const float *in, int width, int height)
{
    int x = threadIdx.x + blockIdx.x * blockDim.x;
    int y = threadIdx.y + blockIdx.y * blockDim.y;

    if (x >= 1 && y >= 1 && x < width - 1 && y < height - 1)
    {
        float acc = 0.f;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++)
                acc += d_w[(dy + 1) * 3 + (dx + 1)] * in[(y + dy) * width + (x + dx)];
        out[y * width + x] = acc;
    }
}
