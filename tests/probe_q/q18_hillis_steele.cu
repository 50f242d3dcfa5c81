// style: GPU Gems 3 ch.39 naive (Hillis-Steele) scan, corrected and made inclusive; single block, double-buffered __shared__ float temp[2][1024] with pout/pin ping-pong, threads past n load 0, host code with cudaMalloc/cudaMemcpy and a CPU reference
// launch: grid 1 block 1024
// sizes: n=999
// expect: block-scan|scan-library
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define MAX_THREADS 1024

__global__ void scan_hillis_steele(float *g_odata, const float *g_idata, int n)
{
    __shared__ float temp[2][MAX_THREADS];
    int thid = threadIdx.x;
    int pout = 0, pin = 1;

    temp[pout][thid] = (thid < n) ? g_idata[thid] : 0.0f;
    __syncthreads();

    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (thid >= offset)
            temp[pout][thid] = temp[pin][thid] + temp[pin][thid - offset];
        else
            temp[pout][thid] = temp[pin][thid];
        __syncthreads();
    }

    if (thid < n)
        g_odata[thid] = temp[pout][thid];
}

int main(void)
{
    const int n = 999;
    float *h_in = (float *)malloc(n * sizeof(float));
    float *h_out = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) h_in[i] = (float)(i % 4);

    float *d_in, *d_out;
    cudaMalloc((void **)&d_in, n * sizeof(float));
    cudaMalloc((void **)&d_out, n * sizeof(float));
    cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);

    scan_hillis_steele<<<1, MAX_THREADS>>>(d_out, d_in, n);
    cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);

    float ref = 0.0f;
    int errors = 0;
    for (int i = 0; i < n; i++) {
        ref += h_in[i];
        if (fabsf(ref - h_out[i]) > 1e-3f) errors++;
    }
    printf("errors: %d\n", errors);

    cudaFree(d_in); cudaFree(d_out);
    free(h_in); free(h_out);
    return 0;
}
