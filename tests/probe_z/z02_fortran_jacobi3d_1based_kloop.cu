// style: CUDA port of a Fortran 90 Laplace/Jacobi relaxation in real(8) - 1-based i/j/k kept from the DO loops (i = blockIdx.x*blockDim.x + threadIdx.x + 1), column-major U(i,j,k)/UNEW(i,j,k) macros with the -1 shifts, `int i, j, k;` declared up front, the inner `do k = 2, nz-1` kept as a per-thread for loop over k (2-D grid over i/j), `if (i >= 2 && i <= nx-1 ...)` interior guard, 7-point average times sixth, unew boundary left as copied by the host; host main ping-pongs and checks against a CPU sweep
// launch: grid cdiv(nx, 32), cdiv(ny, 4) block 32, 4
// sizes: nx=45 ny=37 nz=29
// expect: stencil-tile|stencil-march|stencil-window
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cuda_runtime.h>

/* column-major, 1-based like the Fortran original: u(nx, ny, nz) */
#define U(i,j,k)    u   [((size_t)((k)-1)*ny + ((j)-1))*nx + ((i)-1)]
#define UNEW(i,j,k) unew[((size_t)((k)-1)*ny + ((j)-1))*nx + ((i)-1)]

__global__ void jacobi3d_sweep(const double *u, double *unew, int nx, int ny, int nz)
{
    int i, j, k;
    const double sixth = 1.0 / 6.0;

    i = blockIdx.x * blockDim.x + threadIdx.x + 1;
    j = blockIdx.y * blockDim.y + threadIdx.y + 1;

    if (i >= 2 && i <= nx - 1 && j >= 2 && j <= ny - 1) {
        for (k = 2; k <= nz - 1; k++) {
            UNEW(i,j,k) = sixth * ( U(i-1,j,k) + U(i+1,j,k)
                                  + U(i,j-1,k) + U(i,j+1,k)
                                  + U(i,j,k-1) + U(i,j,k+1) );
        }
    }
}

static void jacobi3d_cpu(const double *u, double *unew, int nx, int ny, int nz)
{
    int i, j, k;
    for (k = 2; k <= nz - 1; k++)
        for (j = 2; j <= ny - 1; j++)
            for (i = 2; i <= nx - 1; i++)
                UNEW(i,j,k) = (U(i-1,j,k) + U(i+1,j,k) + U(i,j-1,k) + U(i,j+1,k)
                             + U(i,j,k-1) + U(i,j,k+1)) / 6.0;
}

int main(void)
{
    int nx = 45, ny = 37, nz = 29, niter = 10, it;
    size_t n = (size_t)nx * ny * nz;
    double *h_u = (double *)malloc(n * sizeof(double));
    double *h_ref[2], *h_out = (double *)malloc(n * sizeof(double));
    h_ref[0] = (double *)malloc(n * sizeof(double));
    h_ref[1] = (double *)malloc(n * sizeof(double));

    /* hot face at k = 1, everything else cold, plus some noise inside */
    for (size_t p = 0; p < n; p++) h_u[p] = (double)(rand() % 100) / 100.0;
    {
        double *u = h_u; int i, j;
        for (j = 1; j <= ny; j++) for (i = 1; i <= nx; i++) U(i,j,1) = 100.0;
    }
    memcpy(h_ref[0], h_u, n * sizeof(double));
    memcpy(h_ref[1], h_u, n * sizeof(double));

    double *d_u[2];
    cudaMalloc((void **)&d_u[0], n * sizeof(double));
    cudaMalloc((void **)&d_u[1], n * sizeof(double));
    cudaMemcpy(d_u[0], h_u, n * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(d_u[1], h_u, n * sizeof(double), cudaMemcpyHostToDevice);

    dim3 block(32, 4);
    dim3 grid((nx + 31) / 32, (ny + 3) / 4);
    for (it = 0; it < niter; it++) {
        jacobi3d_sweep<<<grid, block>>>(d_u[it & 1], d_u[(it + 1) & 1], nx, ny, nz);
        jacobi3d_cpu(h_ref[it & 1], h_ref[(it + 1) & 1], nx, ny, nz);
    }
    cudaMemcpy(h_out, d_u[niter & 1], n * sizeof(double), cudaMemcpyDeviceToHost);

    double err = 0.0;
    for (size_t p = 0; p < n; p++) err = fmax(err, fabs(h_out[p] - h_ref[niter & 1][p]));
    printf("max err %g %s\n", err, err < 1e-10 ? "PASS" : "FAIL");

    cudaFree(d_u[0]); cudaFree(d_u[1]);
    free(h_u); free(h_out); free(h_ref[0]); free(h_ref[1]);
    return err < 1e-10 ? 0 : 1;
}
