// style: GPU Gems 3 ch.39 prescan -- Blelloch up-sweep/down-sweep in extern shared temp[], offset/d counters, 2 elements per thread, each block scans its own 2*blockDim segment; host main
// launch: grid cdiv(n, 256) block 128 shared 256 * 4
// sizes: n=5003
// expect: block-scan|scan-library|row-scan
#include <stdio.h>
#include <cuda_runtime.h>

__global__ void prescan(float *g_odata, const float *g_idata, int n)
{
    extern __shared__ float temp[];
    int thid = threadIdx.x;
    int m = 2 * blockDim.x;               // elements per block
    int base = blockIdx.x * m;
    int offset = 1;

    int ai = base + 2 * thid, bi = base + 2 * thid + 1;
    temp[2 * thid]     = (ai < n) ? g_idata[ai] : 0.0f;
    temp[2 * thid + 1] = (bi < n) ? g_idata[bi] : 0.0f;

    for (int d = m >> 1; d > 0; d >>= 1) {        // up-sweep
        __syncthreads();
        if (thid < d) {
            int a = offset * (2 * thid + 1) - 1;
            int b = offset * (2 * thid + 2) - 1;
            temp[b] += temp[a];
        }
        offset *= 2;
    }

    if (thid == 0) temp[m - 1] = 0.0f;            // clear the last element

    for (int d = 1; d < m; d *= 2) {              // down-sweep
        offset >>= 1;
        __syncthreads();
        if (thid < d) {
            int a = offset * (2 * thid + 1) - 1;
            int b = offset * (2 * thid + 2) - 1;
            float t = temp[a];
            temp[a] = temp[b];
            temp[b] += t;
        }
    }
    __syncthreads();

    if (ai < n) g_odata[ai] = temp[2 * thid];
    if (bi < n) g_odata[bi] = temp[2 * thid + 1];
}

int main()
{
    const int n = 5003, threads = 128, per_block = 2 * threads;
    const int blocks = (n + per_block - 1) / per_block;
    float h_in[n], h_out[n];
    for (int i = 0; i < n; ++i) h_in[i] = 1.0f;

    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);
    prescan<<<blocks, threads, per_block * sizeof(float)>>>(d_out, d_in, n);
    cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("out[255]=%g out[256]=%g\n", h_out[255], h_out[256]);

    cudaFree(d_in); cudaFree(d_out);
    return 0;
}
