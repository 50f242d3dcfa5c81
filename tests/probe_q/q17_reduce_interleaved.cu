// style: Mark Harris "Optimizing Parallel Reduction" reduce0 (interleaved addressing, divergent tid % (2*s) test) on int data; static __shared__ sdata[BLOCK_SIZE], g_idata/g_odata names, one partial sum per block written to g_odata[blockIdx.x] for a second pass on the host
// launch: grid cdiv(n, 128) block 128
// sizes: n=5003
// expect: block-tree|block-atomic

#define BLOCK_SIZE 128

__global__ void reduce0(const int *g_idata, int *g_odata, int n)
{
    __shared__ int sdata[BLOCK_SIZE];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : 0;
    __syncthreads();

    // do reduction in shared mem
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }

    // write result for this block to global mem
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
