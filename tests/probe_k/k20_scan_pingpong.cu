// style: GPU Gems 3 ch. 39 naive (Hillis-Steele) scan made inclusive and per-block: each 256-thread block scans its own 256-element segment, double buffering through two static __shared__ arrays swapped as pointers, while-loop over offset
// launch: grid cdiv(n, 256) block 256
// sizes: n=1001
// expect: block-scan|scan-library
#include <cuda_runtime.h>

#define SCAN_BLOCK 256

__global__ void segment_inclusive_scan(const float *g_in, float *g_out, int n)
{
    __shared__ float ping[SCAN_BLOCK];
    __shared__ float pong[SCAN_BLOCK];

    const int tid = threadIdx.x;
    const int gid = blockIdx.x * SCAN_BLOCK + tid;

    ping[tid] = (gid < n) ? g_in[gid] : 0.0f;
    __syncthreads();

    float *src = ping;
    float *dst = pong;
    int offset = 1;
    while (offset < SCAN_BLOCK) {
        float v = src[tid];
        if (tid >= offset)
            v += src[tid - offset];
        dst[tid] = v;
        __syncthreads();
        float *t = src; src = dst; dst = t;
        offset *= 2;
    }

    if (gid < n)
        g_out[gid] = src[tid];
}
