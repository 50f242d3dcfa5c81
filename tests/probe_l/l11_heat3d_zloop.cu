// style: Micikevicius-style "naive 2.5-D" 3-D finite-difference heat step: 2-D grid over (ix, iy), each thread marches iz = 1 .. nz-2 with a size_t plane stride, centre index bumped by `c += plane` each step, u_new = u + r*(sum of 6 neighbours - 6u), interior only, host time loop
// launch: grid cdiv(nx, 32), cdiv(ny, 4) block 32, 4
// sizes: nx=67 ny=45 nz=37 r=0.1
// expect: stencil-march|stencil-tile|stencil-window
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void heat3d_step(const float *__restrict__ u, float *__restrict__ unew,
                            int nx, int ny, int nz, float r)
{
    const int ix = blockIdx.x * blockDim.x + threadIdx.x;
    const int iy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ix <= 0 || ix >= nx - 1 || iy <= 0 || iy >= ny - 1)
        return;

    const size_t plane = (size_t)nx * ny;
    size_t c = plane + (size_t)iy * nx + ix;     // iz = 1

    for (int iz = 1; iz < nz - 1; ++iz) {
        const float uc = u[c];
        const float nb = u[c - 1] + u[c + 1]
                       + u[c - nx] + u[c + nx]
                       + u[c - plane] + u[c + plane];
        unew[c] = uc + r * (nb - 6.0f * uc);
        c += plane;
    }
}

int main()
{
    const int nx = 67, ny = 45, nz = 37, steps = 10;
    const float r = 0.1f;
    const size_t n = (size_t)nx * ny * nz;

    float *h = (float *)malloc(n * sizeof(float));
    for (size_t i = 0; i < n; ++i) h[i] = 0.0f;
    h[(nz / 2) * (size_t)nx * ny + (ny / 2) * nx + nx / 2] = 1000.0f;

    float *d_u, *d_v;
    cudaMalloc(&d_u, n * sizeof(float));
    cudaMalloc(&d_v, n * sizeof(float));
    cudaMemcpy(d_u, h, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_v, h, n * sizeof(float), cudaMemcpyHostToDevice);   // boundary stays 0 in both

    dim3 threads(32, 4);
    dim3 blocks((nx + 31) / 32, (ny + 3) / 4);
    for (int s = 0; s < steps; ++s) {
        heat3d_step<<<blocks, threads>>>(d_u, d_v, nx, ny, nz, r);
        float *t = d_u; d_u = d_v; d_v = t;
    }
    cudaMemcpy(h, d_u, n * sizeof(float), cudaMemcpyDeviceToHost);

    double total = 0.0;
    for (size_t i = 0; i < n; ++i) total += h[i];
    printf("total heat after %d steps: %f\n", steps, total);

    cudaFree(d_u); cudaFree(d_v);
    free(h);
    return 0;
}
