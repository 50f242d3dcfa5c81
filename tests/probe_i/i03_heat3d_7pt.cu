// style: HPC-course 3-D heat/diffusion step, 7-point stencil with a 3-D grid (i,j,k) from blockIdx.{x,y,z}; macro-free index (k*ny + j)*nx + i
// launch: grid cdiv(nx, 8), cdiv(ny, 8), cdiv(nz, 8) block 8, 8, 8
// sizes: nx=67 ny=53 nz=45 alpha=0.125
// expect: stencil-tile|stencil-march
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void heat3d_7pt(float *out, const float *in, int nx, int ny, int nz, float alpha)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z * blockDim.z + threadIdx.z;

    if (i >= nx || j >= ny || k >= nz) return;

    long c = ((long)k * ny + j) * nx + i;
    if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1) {
        out[c] = in[c];            // copy boundary
        return;
    }
    long sxy = (long)nx * ny;
    float lap = in[c - 1] + in[c + 1]
              + in[c - nx] + in[c + nx]
              + in[c - sxy] + in[c + sxy]
              - 6.0f * in[c];
    out[c] = in[c] + alpha * lap;
}

int main(int argc, char **argv)
{
    int nx = 67, ny = 53, nz = 45;
    float alpha = 0.125f;
    int steps = 20;
    size_t N = (size_t)nx * ny * nz;
    size_t nbytes = N * sizeof(float);

    float *h_u = (float *)malloc(nbytes);
    for (size_t p = 0; p < N; p++) h_u[p] = (float)(rand() % 100) / 100.0f;

    float *d_a = NULL, *d_b = NULL;
    cudaMalloc(&d_a, nbytes);
    cudaMalloc(&d_b, nbytes);
    cudaMemcpy(d_a, h_u, nbytes, cudaMemcpyHostToDevice);

    dim3 block(8, 8, 8);
    dim3 grid((nx + 7) / 8, (ny + 7) / 8, (nz + 7) / 8);
    for (int s = 0; s < steps; ++s) {
        heat3d_7pt<<<grid, block>>>(d_b, d_a, nx, ny, nz, alpha);
        float *t = d_a; d_a = d_b; d_b = t;
    }
    cudaDeviceSynchronize();
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(err)); return 1; }

    cudaMemcpy(h_u, d_a, nbytes, cudaMemcpyDeviceToHost);
    double sum = 0.0;
    for (size_t p = 0; p < N; p++) sum += h_u[p];
    printf("checksum %.6f\n", sum);

    cudaFree(d_a); cudaFree(d_b); free(h_u);
    return 0;
}
