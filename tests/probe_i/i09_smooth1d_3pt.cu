// style: intro CUDA tutorial 1-D three-point moving average y[i] = (x[i-1]+x[i]+x[i+1])/3 with the guard i > 0 && i < n-1
// launch: grid cdiv(n, 256) block 256
// sizes: n=100001
// expect: stencil-tile
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define THREADS 256

__global__ void smooth3(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1)
        y[i] = (x[i - 1] + x[i] + x[i + 1]) / 3.0f;
}

int main()
{
    int n = 100001;
    size_t bytes = n * sizeof(float);
    float *h_x = (float *)malloc(bytes);
    float *h_y = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) { h_x[i] = (float)(i % 7); h_y[i] = 0.0f; }

    float *d_x, *d_y;
    cudaMalloc(&d_x, bytes);
    cudaMalloc(&d_y, bytes);
    cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice);
    cudaMemset(d_y, 0, bytes);

    int blocks = (n + THREADS - 1) / THREADS;
    smooth3<<<blocks, THREADS>>>(d_x, d_y, n);
    cudaDeviceSynchronize();
    cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost);

    int bad = 0;
    for (int i = 1; i < n - 1; i++) {
        float ref = (h_x[i - 1] + h_x[i] + h_x[i + 1]) / 3.0f;
        if (fabsf(ref - h_y[i]) > 1e-5f) bad++;
    }
    printf("%s (%d mismatches)\n", bad ? "FAILED" : "PASSED", bad);

    cudaFree(d_x); cudaFree(d_y);
    free(h_x); free(h_y);
    return 0;
}
