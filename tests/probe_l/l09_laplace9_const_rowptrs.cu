// style: Stack Overflow answer "compact 9-point Laplacian", weights in __constant__ float c_w9[9] uploaded with cudaMemcpyToSymbol, three row pointers (north/mid/south) into a pitched array (pitch in elements > nx), all nine terms written out by hand, interior only
// launch: grid cdiv(nx, 32), cdiv(ny, 8) block 32, 8
// sizes: nx=129 ny=67 pitch=131
// expect: stencil-tile|stencil-window|stencil-march
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__constant__ float c_w9[9];

__global__ void lap9(const float *__restrict__ u, float *__restrict__ lu, int nx, int ny, int pitch)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || x > nx - 2 || y < 1 || y > ny - 2)
        return;

    const float *north = u + (y - 1) * pitch;
    const float *mid   = u + y * pitch;
    const float *south = u + (y + 1) * pitch;

    lu[y * pitch + x] =
        c_w9[0] * north[x - 1] + c_w9[1] * north[x] + c_w9[2] * north[x + 1] +
        c_w9[3] * mid[x - 1]   + c_w9[4] * mid[x]   + c_w9[5] * mid[x + 1] +
        c_w9[6] * south[x - 1] + c_w9[7] * south[x] + c_w9[8] * south[x + 1];
}

int main()
{
    const int nx = 129, ny = 67, pitch = 131;
    const float h_w9[9] = { 1.f / 6, 4.f / 6, 1.f / 6,
                            4.f / 6, -20.f / 6, 4.f / 6,
                            1.f / 6, 4.f / 6, 1.f / 6 };
    cudaMemcpyToSymbol(c_w9, h_w9, sizeof(h_w9));

    size_t bytes = (size_t)pitch * ny * sizeof(float);
    float *h_u = (float *)malloc(bytes);
    for (int y = 0; y < ny; ++y)
        for (int x = 0; x < pitch; ++x)
            h_u[y * pitch + x] = (x < nx) ? (float)(x * x + y * y) : 0.f;   // Laplacian = 4

    float *d_u, *d_lu;
    cudaMalloc(&d_u, bytes);
    cudaMalloc(&d_lu, bytes);
    cudaMemcpy(d_u, h_u, bytes, cudaMemcpyHostToDevice);
    cudaMemset(d_lu, 0, bytes);

    dim3 block(32, 8);
    dim3 grid((nx + 31) / 32, (ny + 7) / 8);
    lap9<<<grid, block>>>(d_u, d_lu, nx, ny, pitch);
    cudaMemcpy(h_u, d_lu, bytes, cudaMemcpyDeviceToHost);
    printf("lap at centre = %f (expect 4)\n", h_u[(ny / 2) * pitch + nx / 2]);

    cudaFree(d_u); cudaFree(d_lu);
    free(h_u);
    return 0;
}
