// launch: grid 1 block 384 shared 2*n*4
// sizes: n=384
// expect: block-scan|scan-library
// exclusive Hillis-Steele scan of n elements in one block, double-buffered in shared memory (GPU Gems 3 ch. 39, Example 39-1 naive scan, with the buffer fix)
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

__global__ void scan(float *g_odata, float *g_idata, int n)
{
    extern __shared__ float temp[]; // allocated on invocation
    int thid = threadIdx.x;
    int pout = 0, pin = 1;

    // Load input into shared memory.
    // This is exclusive scan, so shift right by one
    // and set first element to 0
    temp[pout*n + thid] = (thid > 0) ? g_idata[thid-1] : 0;
    __syncthreads();

    for (int offset = 1; offset < n; offset *= 2)
    {
        pout = 1 - pout; // swap double buffer indices
        pin = 1 - pout;
        if (thid >= offset)
            temp[pout*n+thid] = temp[pin*n+thid] + temp[pin*n+thid - offset];
        else
            temp[pout*n+thid] = temp[pin*n+thid];
        __syncthreads();
    }

    g_odata[thid] = temp[pout*n+thid]; // write output
}

int main()
{
    const int n = 384;
    float h_in[n], h_out[n];
    for (int i = 0; i < n; i++) h_in[i] = (float)(rand() % 10);

    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);

    scan<<<1, n, 2 * n * sizeof(float)>>>(d_out, d_in, n);
    cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);

    float ref = 0.0f;
    int bad = 0;
    for (int i = 0; i < n; i++) {
        if (h_out[i] != ref) bad++;
        ref += h_in[i];
    }
    printf("%d mismatches\n", bad);

    cudaFree(d_in);
    cudaFree(d_out);
    return 0;
}
