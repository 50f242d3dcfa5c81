// style: k-NN / kernel-method Gram matrix S = X Y^T (row-pointer dot products, i on x indexes rows of S)
// launch: grid cdiv(nx, 16), cdiv(ny, 16) block 16, 16
// sizes: nx=233 ny=179 dim=67
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce|matmul-library
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void gram_kernel(const float *X, const float *Y, float *S, int nx, int ny, int dim)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;   // query point
    int j = blockIdx.y * blockDim.y + threadIdx.y;   // reference point
    if (i < nx && j < ny) {
        const float *xi = X + i * dim;
        const float *yj = Y + j * dim;
        float d = 0.0f;
        for (int k = 0; k < dim; k++)
            d += xi[k] * yj[k];
        S[i * ny + j] = d;
    }
}

int main()
{
    int nx = 233, ny = 179, dim = 67;
    float *hX = (float *)malloc(nx * dim * sizeof(float));
    float *hY = (float *)malloc(ny * dim * sizeof(float));
    float *hS = (float *)malloc(nx * ny * sizeof(float));
    for (int t = 0; t < nx * dim; t++) hX[t] = rand() / (float)RAND_MAX;
    for (int t = 0; t < ny * dim; t++) hY[t] = rand() / (float)RAND_MAX;
    float *dX, *dY, *dS;
    cudaMalloc(&dX, nx * dim * sizeof(float));
    cudaMalloc(&dY, ny * dim * sizeof(float));
    cudaMalloc(&dS, nx * ny * sizeof(float));
    cudaMemcpy(dX, hX, nx * dim * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dY, hY, ny * dim * sizeof(float), cudaMemcpyHostToDevice);
    dim3 block(16, 16);
    dim3 grid((nx + 15) / 16, (ny + 15) / 16);
    gram_kernel<<<grid, block>>>(dX, dY, dS, nx, ny, dim);
    cudaMemcpy(hS, dS, nx * ny * sizeof(float), cudaMemcpyDeviceToHost);
    printf("S[0] = %f\n", hS[0]);
    cudaFree(dX); cudaFree(dY); cudaFree(dS);
    free(hX); free(hY); free(hS);
    return 0;
}
