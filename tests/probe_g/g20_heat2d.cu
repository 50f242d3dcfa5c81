// style: explicit FTCS 2-D heat equation step from a class assignment: T_new = T + r*(laplacian), r = alpha*dt/dx^2, Dirichlet edges kept, linear gid with gid / nx, gid % nx
// launch: grid cdiv(nx*ny, 256) block 256
// sizes: nx=301 ny=203 r=0.2
// expect: stencil-tile
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void heat_step(const float *T, float *Tnew, int nx, int ny, float r)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= nx * ny) return;
    int x = gid % nx;
    int y = gid / nx;

    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
        Tnew[gid] = T[gid];          // fixed boundary temperature
    } else {
        float center = T[gid];
        float lap = T[gid - 1] + T[gid + 1] + T[gid - nx] + T[gid + nx] - 4.0f * center;
        Tnew[gid] = center + r * lap;
    }
}

int main()
{
    const int nx = 301, ny = 203, steps = 500;
    const float alpha = 1.0f, dx = 0.01f, dt = 0.2f * dx * dx / alpha;
    const float r = alpha * dt / (dx * dx);
    size_t bytes = (size_t)nx * ny * sizeof(float);

    float *h = (float*)malloc(bytes);
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++)
            h[j * nx + i] = (j == 0) ? 100.0f : 0.0f;   // hot top wall

    float *d_T, *d_Tnew;
    cudaMalloc(&d_T, bytes);
    cudaMalloc(&d_Tnew, bytes);
    cudaMemcpy(d_T, h, bytes, cudaMemcpyHostToDevice);

    int threads = 256;
    int blocks = (nx * ny + threads - 1) / threads;
    for (int s = 0; s < steps; s++) {
        heat_step<<<blocks, threads>>>(d_T, d_Tnew, nx, ny, r);
        float *tmp = d_T; d_T = d_Tnew; d_Tnew = tmp;
    }
    cudaMemcpy(h, d_T, bytes, cudaMemcpyDeviceToHost);
    printf("T at (nx/2, 5) = %f\n", h[5 * nx + nx / 2]);

    cudaFree(d_T); cudaFree(d_Tnew); free(h);
    return 0;
}
