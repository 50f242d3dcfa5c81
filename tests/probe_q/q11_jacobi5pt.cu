// style: HPC-course 2-D Laplace/Jacobi sweep; #define IDX(i,j) row-major macro, i (row) from the y thread index and j (column) from x, boundary cells copied through, one sweep launched from main() with cudaMalloc/cudaMemcpy
// launch: grid cdiv(nx, 32), cdiv(ny, 4) block 32, 4
// sizes: nx=131 ny=67
// expect: stencil-tile|stencil-window
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define IDX(i, j) ((i) * nx + (j))

__global__ void jacobi_step(const float *u, float *unew, int nx, int ny)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;

    if (i >= ny || j >= nx) return;

    if (i == 0 || j == 0 || i == ny - 1 || j == nx - 1) {
        unew[IDX(i, j)] = u[IDX(i, j)];
        return;
    }
    unew[IDX(i, j)] = 0.25f * (u[IDX(i - 1, j)] + u[IDX(i + 1, j)]
                             + u[IDX(i, j - 1)] + u[IDX(i, j + 1)]);
}

int main()
{
    const int nx = 131, ny = 67;
    size_t bytes = (size_t)nx * ny * sizeof(float);
    float *h = (float *)calloc((size_t)nx * ny, sizeof(float));
    for (int j = 0; j < nx; ++j) h[j] = 1.0f;   /* hot top edge */

    float *d_u, *d_unew;
    cudaMalloc(&d_u, bytes);
    cudaMalloc(&d_unew, bytes);
    cudaMemcpy(d_u, h, bytes, cudaMemcpyHostToDevice);

    dim3 block(32, 4);
    dim3 grid((nx + block.x - 1) / block.x, (ny + block.y - 1) / block.y);
    jacobi_step<<<grid, block>>>(d_u, d_unew, nx, ny);
    cudaMemcpy(h, d_unew, bytes, cudaMemcpyDeviceToHost);
    printf("u[1][1] = %f\n", h[nx + 1]);

    cudaFree(d_u); cudaFree(d_unew); free(h);
    return 0;
}
