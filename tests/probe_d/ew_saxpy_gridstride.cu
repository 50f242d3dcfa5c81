// launch: grid cdiv(n, 256) block 256
// sizes: n=400000 a=2.0
// expect:
// NVIDIA blog "CUDA Pro Tip: Write Flexible Kernels with Grid-Stride Loops" saxpy, n from argv with a default
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

__global__
void saxpy(int n, float a, float *x, float *y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x;
         i < n;
         i += blockDim.x * gridDim.x)
    {
        y[i] = a * x[i] + y[i];
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
    float *x, *y, *d_x, *d_y;
    x = (float*)malloc(n*sizeof(float));
    y = (float*)malloc(n*sizeof(float));

    cudaMalloc(&d_x, n*sizeof(float));
    cudaMalloc(&d_y, n*sizeof(float));

    for (int i = 0; i < n; i++) {
        x[i] = 1.0f;
        y[i] = 2.0f;
    }

    cudaMemcpy(d_x, x, n*sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, y, n*sizeof(float), cudaMemcpyHostToDevice);

    int numSMs;
    cudaDeviceGetAttribute(&numSMs, cudaDevAttrMultiProcessorCount, 0);
    // Perform SAXPY on 1M elements
    saxpy<<<32*numSMs, 256>>>(n, 2.0f, d_x, d_y);

    cudaMemcpy(y, d_y, n*sizeof(float), cudaMemcpyDeviceToHost);

    float maxError = 0.0f;
    for (int i = 0; i < n; i++)
        maxError = fmaxf(maxError, fabsf(y[i]-4.0f));
    printf("Max error: %f\n", maxError);

    cudaFree(d_x);
    cudaFree(d_y);
    free(x);
    free(y);
}
