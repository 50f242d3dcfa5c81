// style: GPU Gems 3 ch.39 "prescan" work-efficient (Blelloch) exclusive scan in ONE block: extern __shared__ temp[], up-sweep with offset *= 2, clear last, down-sweep; tree size 2*blockDim padded with zeros past n
// launch: grid 1 block 512 shared 2 * 512 * 4
// sizes: n=1001
// expect: block-scan|scan-library
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define NUM_ELEMENTS 1001
#define BLOCK_THREADS 512     // 2*BLOCK_THREADS must be >= n (single block)

__global__ void prescan(float *g_odata, float *g_idata, int n)
{
    extern __shared__ float temp[];   // allocated on invocation
    int thid = threadIdx.x;
    int offset = 1;
    int m = 2 * blockDim.x;           // power-of-two tree size

    int ai = 2 * thid;
    int bi = 2 * thid + 1;
    temp[ai] = (ai < n) ? g_idata[ai] : 0.0f;   // load input into shared memory
    temp[bi] = (bi < n) ? g_idata[bi] : 0.0f;

    for (int d = m >> 1; d > 0; d >>= 1)         // build sum in place up the tree
    {
        __syncthreads();
        if (thid < d)
        {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset *= 2;
    }

    if (thid == 0) { temp[m - 1] = 0; }          // clear the last element

    for (int d = 1; d < m; d *= 2)               // traverse down tree & build scan
    {
        offset >>= 1;
        __syncthreads();
        if (thid < d)
        {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            float t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    __syncthreads();

    if (ai < n) g_odata[ai] = temp[ai];          // write results to device memory
    if (bi < n) g_odata[bi] = temp[bi];
}

int main()
{
    int n = NUM_ELEMENTS;
    unsigned int mem_size = sizeof(float) * n;

    float *h_data = (float *)malloc(mem_size);
    float *h_result = (float *)malloc(mem_size);
    for (int i = 0; i < n; i++) h_data[i] = (float)(rand() & 0xf);

    float *d_idata, *d_odata;
    cudaMalloc((void **)&d_idata, mem_size);
    cudaMalloc((void **)&d_odata, mem_size);
    cudaMemcpy(d_idata, h_data, mem_size, cudaMemcpyHostToDevice);

    dim3 grid(1, 1, 1);
    dim3 threads(BLOCK_THREADS, 1, 1);
    unsigned int shared_mem_size = 2 * BLOCK_THREADS * sizeof(float);
    prescan<<<grid, threads, shared_mem_size>>>(d_odata, d_idata, n);
    cudaDeviceSynchronize();

    cudaMemcpy(h_result, d_odata, mem_size, cudaMemcpyDeviceToHost);

    // compute reference (exclusive)
    float acc = 0.0f;
    int errs = 0;
    for (int i = 0; i < n; i++) {
        if (h_result[i] != acc) errs++;
        acc += h_data[i];
    }
    printf("Test %s\n", errs == 0 ? "PASSED" : "FAILED");

    free(h_data); free(h_result);
    cudaFree(d_idata); cudaFree(d_odata);
    return 0;
}
