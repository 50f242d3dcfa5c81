// style: NVIDIA OpenACC-course laplace2d ported to CUDA: Anew[j*m + i] = 0.25f * (4 neighbours) for interior points and an `else` branch copying the boundary A -> Anew, j (row) from y, i (column) from x, host while loop with iteration cap that swaps the two device pointers
// launch: grid cdiv(m, 32), cdiv(n, 16) block 32, 16
// sizes: n=67 m=129
// expect: stencil-tile|stencil-window|stencil-march
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

__global__ void jacobi_laplace(const float *A, float *Anew, int n, int m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;

    if (j < n && i < m) {
        if (j > 0 && j < n - 1 && i > 0 && i < m - 1) {
            Anew[j * m + i] = 0.25f * (A[j * m + i + 1] + A[j * m + i - 1]
                                     + A[(j - 1) * m + i] + A[(j + 1) * m + i]);
        } else {
            Anew[j * m + i] = A[j * m + i];
        }
    }
}

int main(int argc, char **argv)
{
    const int n = 67, m = 129, iter_max = 100;
    float *A = (float *)calloc((size_t)n * m, sizeof(float));
    for (int j = 0; j < n; j++) A[j * m + 0] = 1.0f;   // left wall held at 1

    float *d_A, *d_Anew;
    cudaMalloc(&d_A, (size_t)n * m * sizeof(float));
    cudaMalloc(&d_Anew, (size_t)n * m * sizeof(float));
    cudaMemcpy(d_A, A, (size_t)n * m * sizeof(float), cudaMemcpyHostToDevice);

    dim3 block(32, 16);
    dim3 grid((m + block.x - 1) / block.x, (n + block.y - 1) / block.y);
    int iter = 0;
    while (iter < iter_max) {
        jacobi_laplace<<<grid, block>>>(d_A, d_Anew, n, m);
        float *tmp = d_A; d_A = d_Anew; d_Anew = tmp;
        iter++;
    }
    cudaMemcpy(A, d_A, (size_t)n * m * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%5d iterations, A[n/2][1] = %f\n", iter, A[(n / 2) * m + 1]);

    cudaFree(d_A); cudaFree(d_Anew);
    free(A);
    return 0;
}
