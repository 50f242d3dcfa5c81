// style: GPU Gems 3 ch.39 naive Hillis-Steele exclusive scan, single block, double-buffered shared array with pout/pin swapping (with the += bug of the book fixed)
// launch: grid 1 block 512
// sizes: n=377
// expect: block-scan|scan-library
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define MAX_N 512

__global__ void scan_naive(float *g_odata, const float *g_idata, int n)
{
    __shared__ float temp[2 * MAX_N];   // allocated on invocation
    int thid = threadIdx.x;
    int pout = 0, pin = 1;

    // Load input into shared memory.
    // This is exclusive scan, so shift right by one and set first element to 0
    if (thid < n)
        temp[pout * n + thid] = (thid > 0) ? g_idata[thid - 1] : 0.0f;
    __syncthreads();

    for (int offset = 1; offset < n; offset *= 2) {
        pout = 1 - pout;   // swap double buffer indices
        pin = 1 - pout;
        if (thid < n) {
            if (thid >= offset)
                temp[pout * n + thid] = temp[pin * n + thid] + temp[pin * n + thid - offset];
            else
                temp[pout * n + thid] = temp[pin * n + thid];
        }
        __syncthreads();
    }
    if (thid < n)
        g_odata[thid] = temp[pout * n + thid];   // write output
}

int main()
{
    int n = 377;
    float h_in[MAX_N], h_out[MAX_N];
    for (int i = 0; i < n; i++) h_in[i] = (float)(i % 7);

    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);

    scan_naive<<<1, MAX_N>>>(d_out, d_in, n);
    cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);

    float ref = 0.0f; int errors = 0;
    for (int i = 0; i < n; i++) {
        if (h_out[i] != ref) errors++;
        ref += h_in[i];
    }
    printf("%d errors\n", errors);

    cudaFree(d_in); cudaFree(d_out);
    return 0;
}
