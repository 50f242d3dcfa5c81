// style: stream-compaction step 1 (predicate + exclusive scan per block with double-buffered Hillis-Steele, block totals out)
// launch: grid cdiv(n, 256) block 256 shared 2 * 256 * sizeof(int)
// sizes: n=5003 threshold=50
// expect: block-scan|scan-library
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define BLOCK 256

__global__ void scan_predicate(const int *in, int *scanned, int *block_sums, int n, int threshold)
{
    extern __shared__ int temp[];   // 2 * blockDim.x ints
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;
    int pout = 0, pin = 1;

    int flag = (gid < n && in[gid] > threshold) ? 1 : 0;
    temp[pout * blockDim.x + tid] = flag;
    __syncthreads();

    for (int offset = 1; offset < blockDim.x; offset <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (tid >= offset)
            temp[pout * blockDim.x + tid] = temp[pin * blockDim.x + tid] + temp[pin * blockDim.x + tid - offset];
        else
            temp[pout * blockDim.x + tid] = temp[pin * blockDim.x + tid];
        __syncthreads();
    }

    // inclusive -> exclusive
    if (gid < n)
        scanned[gid] = temp[pout * blockDim.x + tid] - flag;
    if (tid == blockDim.x - 1)
        block_sums[blockIdx.x] = temp[pout * blockDim.x + tid];
}

int main()
{
    int n = 5003, threshold = 50;
    int nblocks = (n + BLOCK - 1) / BLOCK;
    int *h_in = (int *)malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) h_in[i] = rand() % 100;
    int *d_in, *d_scan, *d_sums;
    cudaMalloc(&d_in, n * sizeof(int));
    cudaMalloc(&d_scan, n * sizeof(int));
    cudaMalloc(&d_sums, nblocks * sizeof(int));
    cudaMemcpy(d_in, h_in, n * sizeof(int), cudaMemcpyHostToDevice);
    scan_predicate<<<nblocks, BLOCK, 2 * BLOCK * sizeof(int)>>>(d_in, d_scan, d_sums, n, threshold);
    cudaDeviceSynchronize();
    printf("done\n");
    cudaFree(d_in); cudaFree(d_scan); cudaFree(d_sums);
    free(h_in);
    return 0;
}
