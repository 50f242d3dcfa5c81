// style: Harris reduce #1, interleaved addressing with the divergent `tid % (2*s) == 0` test; per-block partials written to g_odata[blockIdx.x]
// launch: grid cdiv(n, 128) block 128
// sizes: n=77777
// expect: block-tree|block-atomic
__global__ void reduce0(float *g_idata, float *g_odata, int n)
{
    __shared__ float sdata[128];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = 0;
    if (i < n) sdata[tid] = g_idata[i];
    __syncthreads();

    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }

    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
