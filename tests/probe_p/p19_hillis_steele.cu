// style: CS344 (Udacity) Hillis-Steele inclusive scan homework; single extern __shared__ buffer, neighbour read into a register, __syncthreads, then write, __syncthreads; zero-padded tail, per-block result only, main()
// launch: grid cdiv(n, 512) block 512 shared 2048
// sizes: n=5003
// expect: block-scan|scan-library
#include <stdio.h>
#include <stdlib.h>

__global__ void hillis_steele_scan(float *g_out, const float *g_in, int n)
{
    extern __shared__ float buf[];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;

    buf[tid] = (gid < n) ? g_in[gid] : 0.0f;
    __syncthreads();

    for (int offset = 1; offset < blockDim.x; offset <<= 1) {
        float v = 0.0f;
        if (tid >= offset) v = buf[tid - offset];
        __syncthreads();
        if (tid >= offset) buf[tid] += v;
        __syncthreads();
    }

    if (gid < n) g_out[gid] = buf[tid];
}

int main(void)
{
    const int n = 5003, THREADS = 512;
    float *h = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) h[i] = 1.0f;

    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice);

    int blocks = (n + THREADS - 1) / THREADS;
    hillis_steele_scan<<<blocks, THREADS, THREADS * sizeof(float)>>>(d_out, d_in, n);

    cudaMemcpy(h, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("h[511]=%.0f h[512]=%.0f h[n-1]=%.0f\n", h[511], h[512], h[n - 1]);
    cudaFree(d_in); cudaFree(d_out); free(h);
    return 0;
}
