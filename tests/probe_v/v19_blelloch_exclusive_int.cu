// style: GPU Gems 3 ch.39 work-efficient (Blelloch) exclusive scan on int, without the bank-conflict padding; each block of 128 threads scans 2*128 elements loaded as pairs (2*tid, 2*tid+1), zero padded past n, up-sweep/down-sweep with an `offset` variable that is doubled then halved, block total saved before clearing the root
// launch: grid cdiv(n, 256) block 128
// sizes: n=1999
// expect: block-scan|scan-library|row-scan
#include <cuda_runtime.h>

#define THREADS 128
#define SEG (2 * THREADS)

__global__ void prescan(const int *g_idata, int *g_odata, int *g_blocksums, int n)
{
    __shared__ int temp[SEG];
    int thid = threadIdx.x;
    int base = blockIdx.x * SEG;
    int ai = base + 2 * thid;
    int bi = base + 2 * thid + 1;

    temp[2 * thid]     = (ai < n) ? g_idata[ai] : 0;
    temp[2 * thid + 1] = (bi < n) ? g_idata[bi] : 0;

    int offset = 1;
    for (int d = SEG >> 1; d > 0; d >>= 1) {   // up-sweep
        __syncthreads();
        if (thid < d) {
            int a = offset * (2 * thid + 1) - 1;
            int b = offset * (2 * thid + 2) - 1;
            temp[b] += temp[a];
        }
        offset *= 2;
    }

    if (thid == 0) {
        g_blocksums[blockIdx.x] = temp[SEG - 1];
        temp[SEG - 1] = 0;
    }

    for (int d = 1; d < SEG; d *= 2) {   // down-sweep
        offset >>= 1;
        __syncthreads();
        if (thid < d) {
            int a = offset * (2 * thid + 1) - 1;
            int b = offset * (2 * thid + 2) - 1;
            int t = temp[a];
            temp[a] = temp[b];
            temp[b] += t;
        }
    }
    __syncthreads();

    if (ai < n) g_odata[ai] = temp[2 * thid];
    if (bi < n) g_odata[bi] = temp[2 * thid + 1];
}
