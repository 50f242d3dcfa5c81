// corpus: templated block reduction with cooperative groups: block.sync() at the top of each step
// absent: fp64-in-float-kernel, sync-in-divergent-branch, shared-bank-conflict, register-spill
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

template <typename T>
__global__ void block_max(const T* __restrict__ in, T* __restrict__ out, int n) {
    cg::thread_block block = cg::this_thread_block();
    __shared__ T s[256];
    unsigned int tid = block.thread_rank();
    T v = in[0];
    for (unsigned int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x) v = max(v, in[i]);
    s[tid] = v;
    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {  // expect: block-reduction-barriers, block-size-loop
        block.sync();
        if (tid < stride) s[tid] = max(s[tid], s[tid + stride]);
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

void launch_max(const float* a, float* b, const int* c, int* d, int n) {
    block_max<float><<<264, 256>>>(a, b, n);
    block_max<int><<<264, 256>>>(c, d, n);
}
