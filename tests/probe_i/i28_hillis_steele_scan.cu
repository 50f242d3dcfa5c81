// style: Udacity CS344 "Intro to Parallel Programming" Hillis-Steele inclusive scan, single block, double-buffered shared array with pout/pin ping-pong
// launch: grid 1 block 1024
// sizes: n=1001
// expect: block-scan|scan-library
#define MAX_N 1024   // n must be <= blockDim.x <= MAX_N

__global__ void hillis_steele_scan(const float *d_in, float *d_out, int n)
{
    __shared__ float buf[2][MAX_N];
    int tid = threadIdx.x;
    int pout = 0, pin = 1;

    buf[pout][tid] = (tid < n) ? d_in[tid] : 0.0f;
    __syncthreads();

    for (int offset = 1; offset < n; offset <<= 1) {
        pout = 1 - pout;   // swap double buffer indices
        pin  = 1 - pout;
        if (tid >= offset)
            buf[pout][tid] = buf[pin][tid] + buf[pin][tid - offset];
        else
            buf[pout][tid] = buf[pin][tid];
        __syncthreads();
    }

    if (tid < n)
        d_out[tid] = buf[pout][tid];
}
