// style: Coursera "heterogeneous parallel programming" style 2-D heat equation, Jacobi 5-point update with centre/neighbour weights c0, c1 passed in; x fastest, ping-pong buffers on host
// launch: grid cdiv(nx, 16), cdiv(ny, 16) block 16, 16
// sizes: nx=203 ny=157 c0=0.6 c1=0.1
// expect: stencil-tile
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define NX 203
#define NY 157
#define NSTEPS 50
#define BLOCK_X 16
#define BLOCK_Y 16

#define CHECK(call) { cudaError_t e = (call); if (e != cudaSuccess) { \
    printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); exit(1);} }

// Told -> Tnew, boundary cells are never written (Dirichlet)
__global__ void heat_step(const float * __restrict__ Told, float * __restrict__ Tnew,
                          int nx, int ny, float c0, float c1)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;   // column (x)
    int j = blockIdx.y * blockDim.y + threadIdx.y;   // row (y)

    if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1) {
        int c = j * nx + i;
        Tnew[c] = c0 * Told[c]
                + c1 * (Told[c - 1] + Told[c + 1] + Told[c - nx] + Told[c + nx]);
    }
}

int main(void)
{
    int nx = NX, ny = NY;
    float c0 = 0.6f, c1 = 0.1f;
    size_t bytes = (size_t)nx * ny * sizeof(float);

    float *h_T = (float *)malloc(bytes);
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++)
            h_T[j * nx + i] = (j == 0) ? 100.0f : 0.0f;   // hot top wall

    float *d_T0, *d_T1;
    CHECK(cudaMalloc((void **)&d_T0, bytes));
    CHECK(cudaMalloc((void **)&d_T1, bytes));
    CHECK(cudaMemcpy(d_T0, h_T, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_T1, h_T, bytes, cudaMemcpyHostToDevice));

    dim3 dimBlock(BLOCK_X, BLOCK_Y);
    dim3 dimGrid((nx + BLOCK_X - 1) / BLOCK_X, (ny + BLOCK_Y - 1) / BLOCK_Y);

    for (int it = 0; it < NSTEPS; it++) {
        heat_step<<<dimGrid, dimBlock>>>(d_T0, d_T1, nx, ny, c0, c1);
        float *tmp = d_T0; d_T0 = d_T1; d_T1 = tmp;
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h_T, d_T0, bytes, cudaMemcpyDeviceToHost));

    printf("T[1][nx/2] = %f\n", h_T[1 * nx + nx / 2]);
    cudaFree(d_T0); cudaFree(d_T1);
    free(h_T);
    return 0;
}
