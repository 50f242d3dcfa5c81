// style: GPU Gems 3 ch.39 prescan (Blelloch) on int without bank-conflict padding; #define THREADS/ELEMS, static __shared__ temp, ai/bi two elements per thread, offset doubling then halving, zero-filled tail
// launch: grid cdiv(n, 256) block 128
// sizes: n=1000
// expect: block-scan|scan-library

#define THREADS 128
#define ELEMS   (2 * THREADS)

// Exclusive scan of each ELEMS-long segment of g_idata (no cross-block carry).
__global__ void prescan_block(int *g_odata, const int *g_idata, int n)
{
    __shared__ int temp[ELEMS];
    int thid = threadIdx.x;
    int base = blockIdx.x * ELEMS;
    int ai = thid;
    int bi = thid + THREADS;

    temp[ai] = (base + ai < n) ? g_idata[base + ai] : 0;
    temp[bi] = (base + bi < n) ? g_idata[base + bi] : 0;

    int offset = 1;
    for (int d = ELEMS >> 1; d > 0; d >>= 1) {      // up-sweep
        __syncthreads();
        if (thid < d) {
            int a = offset * (2 * thid + 1) - 1;
            int b = offset * (2 * thid + 2) - 1;
            temp[b] += temp[a];
        }
        offset *= 2;
    }

    if (thid == 0) temp[ELEMS - 1] = 0;             // clear the root

    for (int d = 1; d < ELEMS; d *= 2) {            // down-sweep
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

    if (base + ai < n) g_odata[base + ai] = temp[ai];
    if (base + bi < n) g_odata[base + bi] = temp[bi];
}
