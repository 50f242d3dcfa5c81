// launch: grid cdiv(n, 256) block 256
// sizes: n=100000
// expect: block-scan
// inclusive scan of each block's chunk (Hillis-Steele in place) with the block totals kept for a second pass
#define SECTION 256
__global__ void kogge_stone_scan(const float *X, float *Y, float *S, unsigned int n)
{
    __shared__ float XY[SECTION];
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) XY[threadIdx.x] = X[i];
    else XY[threadIdx.x] = 0.0f;
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        __syncthreads();
        float temp;
        if (threadIdx.x >= stride)
            temp = XY[threadIdx.x] + XY[threadIdx.x - stride];
        __syncthreads();
        if (threadIdx.x >= stride)
            XY[threadIdx.x] = temp;
    }
    if (i < n) Y[i] = XY[threadIdx.x];
    if (threadIdx.x == blockDim.x - 1) S[blockIdx.x] = XY[SECTION - 1];
}
