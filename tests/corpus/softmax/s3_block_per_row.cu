// corpus: softmax step 3: one block per row (long rows), warp reductions then one shared slot per warp; __expf
// fixes: slow-math-in-loop
// absent: fp64-in-float-kernel, sync-in-divergent-branch, shared-bank-conflict, register-spill, slow-math-in-loop, block-reduction-barriers, reduction-idle-threads
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

template <int THREADS>
__global__ void softmax_block_row(const float* __restrict__ x, float* __restrict__ y, int cols) {
    __shared__ float partial[THREADS / 32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    const float* in = x + (size_t)blockIdx.x * cols;
    float* out = y + (size_t)blockIdx.x * cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += THREADS) m = fmaxf(m, in[c]);
    m = cg::reduce(warp, m, cg::greater<float>());
    if (warp.thread_rank() == 0) partial[warp.meta_group_rank()] = m;
    block.sync();
    m = partial[0];
    for (int w = 1; w < THREADS / 32; ++w) m = fmaxf(m, partial[w]);
    block.sync();
    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += THREADS) sum += __expf(in[c] - m);
    sum = cg::reduce(warp, sum, cg::plus<float>());
    if (warp.thread_rank() == 0) partial[warp.meta_group_rank()] = sum;
    block.sync();
    sum = 0.0f;
    for (int w = 0; w < THREADS / 32; ++w) sum += partial[w];
    const float inv = 1.0f / sum;
    for (int c = threadIdx.x; c < cols; c += THREADS) out[c] = __expf(in[c] - m) * inv;
}

void launch_softmax(const float* x, float* y, int rows, int cols) {
    softmax_block_row<256><<<rows, 256>>>(x, y, cols);
}
