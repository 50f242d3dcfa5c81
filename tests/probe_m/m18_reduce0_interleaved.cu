// style: Mark Harris "reduce0" textbook: extern __shared__ buffer sized at launch, unsigned indices, interleaved addressing with tid % (2*s), one element per thread, block total folded into a single float with atomicAdd
// launch: grid cdiv(n, 256) block 256 shared 256*4
// sizes: n=100003
// expect: block-tree|block-atomic|warp-atomic
__global__ void reduce0_atomic(const float *g_idata, float *g_odata, unsigned int n)
{
    extern __shared__ float sdata[];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : 0.0f;
    __syncthreads();

    // do reduction in shared mem
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }

    // write result for this block to global mem (g_odata zeroed by the host)
    if (tid == 0) atomicAdd(g_odata, sdata[0]);
}
