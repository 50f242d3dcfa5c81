// style: course-homework FTCS heat solver; 1-D launch over nx*ny with the flat index split into row/col by / and %, interior test written as lower-bound guards (i > 0 && i < ny-1 ...), else-branch copies the Dirichlet border, neighbours addressed as idx-1/idx+1/idx-nx/idx+nx, float r passed by value, host main ping-pongs two buffers
// launch: grid cdiv(nx*ny, 256) block 256
// sizes: nx=93 ny=67 r=0.2
// expect: stencil-tile|stencil-window|stencil-march
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); exit(1); } } while (0)

__global__ void heat_step(const float *u, float *unew, int nx, int ny, float r)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= nx * ny) return;

    int i = idx / nx;   // row
    int j = idx % nx;   // column

    if (i > 0 && i < ny - 1 && j > 0 && j < nx - 1) {
        unew[idx] = u[idx] + r * (u[idx - 1] + u[idx + 1] + u[idx - nx] + u[idx + nx] - 4.0f * u[idx]);
    } else {
        // boundary: fixed temperature
        unew[idx] = u[idx];
    }
}

int main(int argc, char **argv)
{
    int nx = 93, ny = 67, nsteps = 100;
    float r = 0.2f;   // alpha*dt/(dx*dx), must be <= 0.25 for stability
    size_t bytes = (size_t)nx * ny * sizeof(float);

    float *h_u = (float *)malloc(bytes);
    for (int i = 0; i < ny; i++)
        for (int j = 0; j < nx; j++)
            h_u[i * nx + j] = (i == 0) ? 100.0f : 0.0f;   // hot top edge

    float *d_u, *d_unew;
    CHECK(cudaMalloc(&d_u, bytes));
    CHECK(cudaMalloc(&d_unew, bytes));
    CHECK(cudaMemcpy(d_u, h_u, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_unew, h_u, bytes, cudaMemcpyHostToDevice));

    int threads = 256;
    int blocks = (nx * ny + threads - 1) / threads;
    for (int n = 0; n < nsteps; n++) {
        heat_step<<<blocks, threads>>>(d_u, d_unew, nx, ny, r);
        float *tmp = d_u; d_u = d_unew; d_unew = tmp;
    }
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_u, d_u, bytes, cudaMemcpyDeviceToHost));
    printf("u[ny/2][nx/2] = %f\n", h_u[(ny / 2) * nx + nx / 2]);

    cudaFree(d_u); cudaFree(d_unew); free(h_u);
    return 0;
}
