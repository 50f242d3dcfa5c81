// launch: grid 1 block 700 shared 2 * n * 4
// sizes: n=700
// expect: block-scan
// GPU Gems 3 ch. 39 naive double-buffered Hillis-Steele exclusive scan in one block (with the well-known += bug fixed)
#include <cuda_runtime.h>
#include <stdio.h>

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
    const int n = 700;
    float h_in[n], h_out[n];
    for (int i = 0; i < n; i++) h_in[i] = 1.0f;
    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);
    scan<<<1, n, 2 * n * sizeof(float)>>>(d_out, d_in, n);
    cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("last = %f (expect %d)\n", h_out[n - 1], n - 1);
    cudaFree(d_in); cudaFree(d_out);
    return 0;
}
