// corpus: a sum written with cg::sync(block) after each step, in a templated kernel launched for float and double
// absent: sync-in-divergent-branch, shared-bank-conflict, register-spill, divergent-interleaved-reduction
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

template <typename T, unsigned int BLOCK>
__global__ void block_sum(const T* __restrict__ in, T* __restrict__ out, int n) {
    __shared__ T partial[BLOCK];
    cg::thread_block cta = cg::this_thread_block();
    unsigned int t = threadIdx.x;
    T acc = 0;
    for (unsigned int i = blockIdx.x * BLOCK + t; i < n; i += BLOCK * gridDim.x) acc += in[i] * 0.5;  // expect: fp64-in-float-kernel
    partial[t] = acc;
    cg::sync(cta);
    for (unsigned int s = BLOCK / 2; s > 0; s >>= 1) {  // expect: block-reduction-barriers
        if (t < s) partial[t] += partial[t + s];
        cg::sync(cta);
    }
    if (t == 0) out[blockIdx.x] = partial[0];
}

void launch_sum(const float* a, float* b, const double* c, double* d, int n) {
    block_sum<float, 512><<<132, 512>>>(a, b, n);
    block_sum<double, 512><<<132, 512>>>(c, d, n);
}
