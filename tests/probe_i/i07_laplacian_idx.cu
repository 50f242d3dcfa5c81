// style: numerical-methods class code, 2-D discrete Laplacian with an #define IDX(i,j) ((i)*nx+(j)) row-major macro, i = row from threadIdx.y, j = column from threadIdx.x
// launch: grid cdiv(nx, 32), cdiv(ny, 4) block 32, 4
// sizes: nx=229 ny=171 inv_h2=0.25
// expect: stencil-tile
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define IDX(i,j) ((i)*nx+(j))

__global__ void laplacian2d(const float *u, float *lap, int nx, int ny, float inv_h2)
{
    int j = blockIdx.x*blockDim.x + threadIdx.x;   // column
    int i = blockIdx.y*blockDim.y + threadIdx.y;   // row
    if (i >= ny || j >= nx) return;

    if (i == 0 || i == ny-1 || j == 0 || j == nx-1) {
        lap[IDX(i,j)] = 0.0f;
    } else {
        lap[IDX(i,j)] = (u[IDX(i-1,j)] + u[IDX(i+1,j)] + u[IDX(i,j-1)] + u[IDX(i,j+1)]
                         - 4.0f*u[IDX(i,j)]) * inv_h2;
    }
}

int main()
{
    const int nx = 229, ny = 171;
    const float h = 2.0f;
    float inv_h2 = 1.0f/(h*h);
    size_t sz = nx*ny*sizeof(float);

    float *u = (float*)malloc(sz), *lap = (float*)malloc(sz);
    for (int i = 0; i < ny; i++)
        for (int j = 0; j < nx; j++)
            u[IDX(i,j)] = sinf(0.05f*i) * cosf(0.03f*j);

    float *d_u, *d_lap;
    cudaMalloc((void**)&d_u, sz);
    cudaMalloc((void**)&d_lap, sz);
    cudaMemcpy(d_u, u, sz, cudaMemcpyHostToDevice);

    dim3 threads(32, 4);
    dim3 blocks((nx + threads.x - 1)/threads.x, (ny + threads.y - 1)/threads.y);
    laplacian2d<<<blocks, threads>>>(d_u, d_lap, nx, ny, inv_h2);
    cudaDeviceSynchronize();
    cudaMemcpy(lap, d_lap, sz, cudaMemcpyDeviceToHost);

    double norm = 0;
    for (int k = 0; k < nx*ny; k++) norm += lap[k]*lap[k];
    printf("||lap||^2 = %g\n", norm);

    cudaFree(d_u); cudaFree(d_lap);
    free(u); free(lap);
    return 0;
}
