// style: Mark Harris "reduce0" (interleaved addressing, tid % (2*s)) adapted to max, extern dynamic shared, unsigned int everywhere
// launch: grid cdiv(n, 256) block 256 shared 1024
// sizes: n=100003
// expect: block-tree|block-atomic|warp-atomic
#include <cfloat>

__global__ void reduce_max0(const float *g_idata, float *g_odata, unsigned int n)
{
    extern __shared__ float sdata[];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : -FLT_MAX;
    __syncthreads();

    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) {
            sdata[tid] = fmaxf(sdata[tid], sdata[tid + s]);
        }
        __syncthreads();
    }

    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
