// Round I's cooperative-groups tree: the rank from block.thread_rank() (passes.group_indices reads it as threadIdx.x
// in a one-dimensional block), cg::sync as the barrier.
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
