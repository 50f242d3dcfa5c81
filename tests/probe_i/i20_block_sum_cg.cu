// style: NVIDIA cooperative-groups blog/sample style block reduction: cg::thread_block block = cg::this_thread_block(), cg::sync(block) instead of __syncthreads, static shared array, per-block result
// launch: grid cdiv(n, 512) block 512
// sizes: n=50001
// expect: block-tree|block-atomic
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define THREADS_PER_BLOCK 512

__global__ void reduce_cg(const float *g_idata, float *g_odata, int n)
{
    cg::thread_block block = cg::this_thread_block();
    __shared__ float sdata[THREADS_PER_BLOCK];

    unsigned int tid = block.thread_rank();
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = (i < n) ? g_idata[i] : 0.0f;
    cg::sync(block);

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        cg::sync(block);
    }

    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
