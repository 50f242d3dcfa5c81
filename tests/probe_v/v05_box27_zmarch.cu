// style: scientific-code 27-point stencil in double precision; 2-D thread grid with each thread marching over z in a for loop, weights in a __constant__ double table indexed by |dx|+|dy|+|dz| (center/face/edge/corner), triple dz/dy/dx loop, boundary planes copied, host main
// launch: grid cdiv(nx, 32), cdiv(ny, 4) block 32, 4
// sizes: nx=37 ny=29 nz=23
// expect: stencil-tile|stencil-window|stencil-march
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

__constant__ double wgt[4];   // [0]=center [1]=face [2]=edge [3]=corner

__global__ void box27(const double *in, double *out, int nx, int ny, int nz)
{
    int ix = blockIdx.x * blockDim.x + threadIdx.x;
    int iy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ix >= nx || iy >= ny) return;

    int plane = nx * ny;
    for (int iz = 0; iz < nz; iz++) {
        int c = iz * plane + iy * nx + ix;
        if (ix == 0 || iy == 0 || iz == 0 || ix == nx - 1 || iy == ny - 1 || iz == nz - 1) {
            out[c] = in[c];
            continue;
        }
        double s = 0.0;
        for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++)
                    s += wgt[abs(dx) + abs(dy) + abs(dz)] * in[c + dz * plane + dy * nx + dx];
        out[c] = s;
    }
}

int main(void)
{
    int nx = 37, ny = 29, nz = 23;
    size_t n = (size_t)nx * ny * nz;
    double h_w[4] = { 8.0 / 64, 4.0 / 64, 2.0 / 64, 1.0 / 64 };   // sums to 1 over 27 taps
    double *h_in = (double *)malloc(n * sizeof(double));
    double *h_out = (double *)malloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++) h_in[i] = (double)(i % 17);

    double *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(double));
    cudaMalloc(&d_out, n * sizeof(double));
    cudaMemcpy(d_in, h_in, n * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpyToSymbol(wgt, h_w, sizeof(h_w));

    dim3 threads(32, 4);
    dim3 blocks((nx + 31) / 32, (ny + 3) / 4);
    box27<<<blocks, threads>>>(d_in, d_out, nx, ny, nz);
    cudaMemcpy(h_out, d_out, n * sizeof(double), cudaMemcpyDeviceToHost);
    printf("out[mid] = %f\n", h_out[(nz / 2) * nx * ny + (ny / 2) * nx + nx / 2]);

    cudaFree(d_in); cudaFree(d_out);
    free(h_in); free(h_out);
    return 0;
}
