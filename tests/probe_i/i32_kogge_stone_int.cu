// style: PMPP ch.11 Kogge-Stone inclusive scan over int (no segments), SECTION_SIZE == blockDim.x, temp + double __syncthreads to avoid the write-after-read race, per-block totals to S for a later pass
// launch: grid cdiv(N, 512) block 512
// sizes: N=60001
// expect: block-scan|scan-library
#define SECTION_SIZE 512

__global__ void Kogge_Stone_scan_kernel(int *X, int *Y, int *S, unsigned int N)
{
    __shared__ int XY[SECTION_SIZE];
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        XY[threadIdx.x] = X[i];
    } else {
        XY[threadIdx.x] = 0;
    }
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        __syncthreads();
        int temp = 0;
        if (threadIdx.x >= stride)
            temp = XY[threadIdx.x] + XY[threadIdx.x - stride];
        __syncthreads();
        if (threadIdx.x >= stride)
            XY[threadIdx.x] = temp;
    }
    if (i < N) {
        Y[i] = XY[threadIdx.x];
    }
    if (threadIdx.x == blockDim.x - 1) {
        S[blockIdx.x] = XY[SECTION_SIZE - 1];
    }
}
