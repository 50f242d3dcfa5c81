// style: PolyBench/Rodinia-like Jacobi 2-D 5-point sweep, interior-only update with the (i >= 1 && i < ny - 1 ...) guard, 0.2f * (5 terms), separate in/out arrays and host ping-pong loop
// launch: grid cdiv(nx, 64), cdiv(ny, 4) block 64, 4
// sizes: nx=129 ny=67
// expect: stencil-tile
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define BLOCK_X 64
#define BLOCK_Y 4

__global__ void jacobi2d_step(const float *A, float *B, int nx, int ny)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;   // column
    int i = blockIdx.y * blockDim.y + threadIdx.y;   // row

    if (i >= 1 && i < ny - 1 && j >= 1 && j < nx - 1) {
        B[i * nx + j] = 0.2f * (A[i * nx + j] + A[i * nx + (j - 1)] + A[i * nx + (j + 1)]
                                + A[(i + 1) * nx + j] + A[(i - 1) * nx + j]);
    }
}

int main(void)
{
    const int nx = 129, ny = 67, tsteps = 20;
    size_t bytes = (size_t)nx * ny * sizeof(float);
    float *h = (float *)malloc(bytes);
    for (int i = 0; i < ny; i++)
        for (int j = 0; j < nx; j++)
            h[i * nx + j] = ((float)i * (j + 2) + 2) / nx;

    float *d_a, *d_b;
    cudaMalloc((void **)&d_a, bytes);
    cudaMalloc((void **)&d_b, bytes);
    cudaMemcpy(d_a, h, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, h, bytes, cudaMemcpyHostToDevice);   // boundary values stay fixed

    dim3 block(BLOCK_X, BLOCK_Y);
    dim3 grid((nx + BLOCK_X - 1) / BLOCK_X, (ny + BLOCK_Y - 1) / BLOCK_Y);
    for (int t = 0; t < tsteps; t++) {
        jacobi2d_step<<<grid, block>>>(d_a, d_b, nx, ny);
        jacobi2d_step<<<grid, block>>>(d_b, d_a, nx, ny);
    }
    cudaMemcpy(h, d_a, bytes, cudaMemcpyDeviceToHost);
    printf("center value %f\n", h[(ny / 2) * nx + nx / 2]);

    cudaFree(d_a); cudaFree(d_b);
    free(h);
    return 0;
}
