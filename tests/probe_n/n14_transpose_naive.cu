// style: cuda-samples transposeNaive -- TILE_DIM 32 / BLOCK_ROWS 8 with each thread looping over 4 rows, but no shared memory; bounds added for odd sizes; host main
// launch: grid cdiv(width, 32), cdiv(height, 32) block 32, 8
// sizes: width=131 height=67
// expect: transpose-tile|gather
#include <stdio.h>
#include <cuda_runtime.h>

#define TILE_DIM   32
#define BLOCK_ROWS 8

// idata is height x width, odata is width x height
__global__ void transposeNaive(float *odata, const float *idata, int width, int height)
{
    int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
    int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;

    if (xIndex >= width) return;
    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
        if (yIndex + i < height)
            odata[xIndex * height + (yIndex + i)] = idata[(yIndex + i) * width + xIndex];
    }
}

int main(int argc, char **argv)
{
    const int width = 131, height = 67;
    const size_t mem_size = sizeof(float) * width * height;
    float *h_idata = (float *)malloc(mem_size);
    float *h_odata = (float *)malloc(mem_size);
    for (int i = 0; i < width * height; ++i) h_idata[i] = (float)i;

    float *d_idata, *d_odata;
    cudaMalloc((void **)&d_idata, mem_size);
    cudaMalloc((void **)&d_odata, mem_size);
    cudaMemcpy(d_idata, h_idata, mem_size, cudaMemcpyHostToDevice);

    dim3 grid((width + TILE_DIM - 1) / TILE_DIM, (height + TILE_DIM - 1) / TILE_DIM);
    dim3 threads(TILE_DIM, BLOCK_ROWS);
    transposeNaive<<<grid, threads>>>(d_odata, d_idata, width, height);
    cudaMemcpy(h_odata, d_odata, mem_size, cudaMemcpyDeviceToHost);
    printf("odata[1] = %g (expect %d)\n", h_odata[1], width);

    cudaFree(d_idata); cudaFree(d_odata);
    free(h_idata); free(h_odata);
    return 0;
}
