// style: parallel-programming course assignment "naive scan" (Hillis-Steele) on ints; double-buffered __shared__ int buf[2][BLOCK] with pout/pin flipped each step, offset loop for (unsigned off = 1; off < blockDim.x; off <<= 1), inclusive result, single block, lanes past n hold 0, no host code
// launch: grid 1 block 512
// sizes: n=413
// expect: block-scan|scan-library
#include <cuda_runtime.h>

#define BLOCK 512

__global__ void hs_inclusive_scan(const int *in, int *out, int n)
{
    __shared__ int buf[2][BLOCK];
    const unsigned t = threadIdx.x;
    int pout = 0, pin = 1;

    buf[pout][t] = (t < static_cast<unsigned>(n)) ? in[t] : 0;
    __syncthreads();

    for (unsigned off = 1; off < blockDim.x; off <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (t >= off)
            buf[pout][t] = buf[pin][t] + buf[pin][t - off];
        else
            buf[pout][t] = buf[pin][t];
        __syncthreads();
    }

    if (t < static_cast<unsigned>(n))
        out[t] = buf[pout][t];
}
