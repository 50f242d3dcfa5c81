// style: HPC summer-school "explicit heat equation" exercise in double precision; i/j/k from 3-D blocks, coefficients cx/cy/cz passed as double parameters, idx computed once with neighbours as idx +- 1, idx +- nx, idx +- nx*ny, boundary cells copied through, host main with cudaMalloc/cudaMemcpy and a time loop swapping pointers
// launch: grid cdiv(nx, 16), cdiv(ny, 8), cdiv(nz, 2) block 16, 8, 2
// sizes: nx=45 ny=27 nz=19 cx=0.1 cy=0.1 cz=0.1
// expect: stencil-march|stencil-tile
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void heat3d_step(const double *T, double *Tn, int nx, int ny, int nz,
                            double cx, double cy, double cz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i >= nx || j >= ny || k >= nz) return;

    int sxy = nx * ny;
    int idx = k * sxy + j * nx + i;

    if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1) {
        Tn[idx] = T[idx];
        return;
    }

    double c = T[idx];
    Tn[idx] = c
            + cx * (T[idx + 1]   - 2.0 * c + T[idx - 1])
            + cy * (T[idx + nx]  - 2.0 * c + T[idx - nx])
            + cz * (T[idx + sxy] - 2.0 * c + T[idx - sxy]);
}

int main()
{
    const int nx = 45, ny = 27, nz = 19, nsteps = 20;
    const double alpha = 0.1, dt = 0.1, h = 1.0;
    const double cx = alpha * dt / (h * h), cy = cx, cz = cx;
    const size_t n = (size_t)nx * ny * nz;

    double *h_T = (double *)malloc(n * sizeof(double));
    for (size_t q = 0; q < n; ++q) h_T[q] = 0.0;
    h_T[(nz / 2) * nx * ny + (ny / 2) * nx + nx / 2] = 100.0;

    double *d_T, *d_Tn;
    cudaMalloc(&d_T, n * sizeof(double));
    cudaMalloc(&d_Tn, n * sizeof(double));
    cudaMemcpy(d_T, h_T, n * sizeof(double), cudaMemcpyHostToDevice);

    dim3 block(16, 8, 2);
    dim3 grid((nx + 15) / 16, (ny + 7) / 8, (nz + 1) / 2);
    for (int s = 0; s < nsteps; ++s) {
        heat3d_step<<<grid, block>>>(d_T, d_Tn, nx, ny, nz, cx, cy, cz);
        double *tmp = d_T; d_T = d_Tn; d_Tn = tmp;
    }
    cudaMemcpy(h_T, d_T, n * sizeof(double), cudaMemcpyDeviceToHost);

    double total = 0.0;
    for (size_t q = 0; q < n; ++q) total += h_T[q];
    printf("total heat: %f\n", total);

    cudaFree(d_T);
    cudaFree(d_Tn);
    free(h_T);
    return 0;
}
