// launch: grid cdiv(nx, 32), cdiv(ny, 16) block 32, 16
// sizes: nx=800 ny=600 alpha=0.1 dt=0.001 dx=0.01
// expect: stencil-tile
// explicit FTCS step of the 2-D heat equation with fixed (Dirichlet) borders copied through (heat-equation tutorial code, e.g. CSC/ENCCS CUDA exercises)
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define IDX(i, j, nx) ((j) * (nx) + (i))

__global__ void heat_step(const float *u, float *u_new, int nx, int ny,
                          float alpha, float dt, float dx)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;

    if (i >= nx || j >= ny) return;

    if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1) {
        u_new[IDX(i, j, nx)] = u[IDX(i, j, nx)];
        return;
    }

    float r = alpha * dt / (dx * dx);
    float lap = u[IDX(i + 1, j, nx)] + u[IDX(i - 1, j, nx)]
              + u[IDX(i, j + 1, nx)] + u[IDX(i, j - 1, nx)]
              - 4.0f * u[IDX(i, j, nx)];
    u_new[IDX(i, j, nx)] = u[IDX(i, j, nx)] + r * lap;
}

int main(int argc, char **argv)
{
    const int nx = 800, ny = 600, nsteps = 500;
    const float alpha = 0.1f, dx = 0.01f;
    const float dt = 0.001f;

    size_t bytes = nx * ny * sizeof(float);
    float *h_u = (float *)malloc(bytes);
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++)
            h_u[IDX(i, j, nx)] = (j == 0) ? 100.0f : 0.0f;

    float *d_u, *d_unew;
    cudaMalloc((void **)&d_u, bytes);
    cudaMalloc((void **)&d_unew, bytes);
    cudaMemcpy(d_u, h_u, bytes, cudaMemcpyHostToDevice);

    dim3 threads(32, 16);
    dim3 blocks((nx + threads.x - 1) / threads.x, (ny + threads.y - 1) / threads.y);
    for (int n = 0; n < nsteps; n++) {
        heat_step<<<blocks, threads>>>(d_u, d_unew, nx, ny, alpha, dt, dx);
        float *tmp = d_u; d_u = d_unew; d_unew = tmp;
    }
    cudaMemcpy(h_u, d_u, bytes, cudaMemcpyDeviceToHost);
    printf("u[center] = %f\n", h_u[IDX(nx / 2, 1, nx)]);

    cudaFree(d_u);
    cudaFree(d_unew);
    free(h_u);
    return 0;
}
