// style: SHOC Reduction spelling - template <class T, int blockSize>, two loads per trip of a grid-stride while loop (i and i + blockSize, gridSize = blockSize*2*gridDim.x) with the second load bounds-checked, compile-time-pruned tree with `if (blockSize >= 512)` guards, SHOC's volatile last-warp unroll rewritten Volta-safe with a register and __syncwarp(); launched as reduce<T, 256> from a RunReducePass<T> host template instantiated for float and double
// launch: grid cdiv(n, 512) block 256
// sizes: n=4901
// template: float, 256
// expect: block-tree|block-atomic|warp-atomic
#include <cuda_runtime.h>

template <class T, int blockSize>
__global__ void
reduce(const T* __restrict__ g_idata, T* __restrict__ g_odata,
       const unsigned int n)
{
    const unsigned int tid = threadIdx.x;
    unsigned int i = (blockIdx.x*(blockSize*2)) + tid;
    const unsigned int gridSize = blockSize*2*gridDim.x;

    __shared__ T sdata[blockSize];
    sdata[tid] = 0;

    // Reduce multiple elements per thread
    while (i < n)
    {
        sdata[tid] += g_idata[i];
        if (i + blockSize < n)
            sdata[tid] += g_idata[i+blockSize];
        i += gridSize;
    }
    __syncthreads();

    // Reduce the contents of shared memory
    if (blockSize >= 512) { if (tid < 256) { sdata[tid] += sdata[tid + 256]; } __syncthreads(); }
    if (blockSize >= 256) { if (tid < 128) { sdata[tid] += sdata[tid + 128]; } __syncthreads(); }
    if (blockSize >= 128) { if (tid <  64) { sdata[tid] += sdata[tid +  64]; } __syncthreads(); }

    if (tid < 32)
    {
        volatile T* smem = sdata;
        T v = smem[tid];
        if (blockSize >= 64) { v += smem[tid + 32]; __syncwarp(); smem[tid] = v; __syncwarp(); }
        if (blockSize >= 32) { v += smem[tid + 16]; __syncwarp(); smem[tid] = v; __syncwarp(); }
        if (blockSize >= 16) { v += smem[tid +  8]; __syncwarp(); smem[tid] = v; __syncwarp(); }
        if (blockSize >=  8) { v += smem[tid +  4]; __syncwarp(); smem[tid] = v; __syncwarp(); }
        if (blockSize >=  4) { v += smem[tid +  2]; __syncwarp(); smem[tid] = v; __syncwarp(); }
        if (blockSize >=  2) { v += smem[tid +  1]; __syncwarp(); smem[tid] = v; __syncwarp(); }
    }

    // Write result for this block to global memory
    if (tid == 0)
    {
        g_odata[blockIdx.x] = sdata[0];
    }
}

// host-side driver: one pass to per-block partials (SHOC finishes on the host / a second pass)
template <class T>
void RunReducePass(const T* d_idata, T* d_odata, unsigned int n, cudaStream_t stream)
{
    const int probSizeBlock = 256;
    unsigned int num_blocks = (n + 2 * probSizeBlock - 1) / (2 * probSizeBlock);
    reduce<T, probSizeBlock><<<num_blocks, probSizeBlock, 0, stream>>>(d_idata, d_odata, n);
}

template void RunReducePass<float>(const float*, float*, unsigned int, cudaStream_t);
template void RunReducePass<double>(const double*, double*, unsigned int, cudaStream_t);
