// style: GPU Gems 3 ch.39 "prescan" (Blelloch work-efficient exclusive scan) in a single block; each thread loads two elements temp[2*thid] and temp[2*thid+1] (zero-padded past n), up-sweep with offset doubling and ai/bi = offset*(2*thid+1)-1 / offset*(2*thid+2)-1, root cleared by thread 0, down-sweep swap-and-add, g_odata/g_idata naming, no host code
// launch: grid 1 block 512
// sizes: n=777
// expect: block-scan|scan-library
#include <cuda_runtime.h>

#define SCAN_THREADS 512
#define SCAN_ELEMS (2 * SCAN_THREADS)

__global__ void prescan(float *g_odata, const float *g_idata, int n)
{
    __shared__ float temp[SCAN_ELEMS];
    int thid = threadIdx.x;
    int offset = 1;

    temp[2 * thid]     = (2 * thid < n)     ? g_idata[2 * thid]     : 0.0f;
    temp[2 * thid + 1] = (2 * thid + 1 < n) ? g_idata[2 * thid + 1] : 0.0f;

    // up-sweep (reduce) phase
    for (int d = SCAN_ELEMS >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (thid < d) {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset *= 2;
    }

    if (thid == 0)
        temp[SCAN_ELEMS - 1] = 0.0f;

    // down-sweep phase
    for (int d = 1; d < SCAN_ELEMS; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (thid < d) {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            float t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    __syncthreads();

    if (2 * thid < n)
        g_odata[2 * thid] = temp[2 * thid];
    if (2 * thid + 1 < n)
        g_odata[2 * thid + 1] = temp[2 * thid + 1];
}
