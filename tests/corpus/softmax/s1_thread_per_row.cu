// corpus: softmax step 1: one thread per row, three passes over the row in global memory
// absent: fp64-in-float-kernel, sync-in-divergent-branch, shared-bank-conflict, register-spill, block-reduction-barriers
__global__ void softmax_thread_row(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* in = x + (size_t)r * cols;
    float* out = y + (size_t)r * cols;
    float m = -INFINITY;
    for (int c = 0; c < cols; ++c) m = fmaxf(m, in[c]);  // expect: uncoalesced-access
    float sum = 0.0f;
    for (int c = 0; c < cols; ++c) sum += expf(in[c] - m);  // expect: slow-math-in-loop, uncoalesced-access
    for (int c = 0; c < cols; ++c) out[c] = expf(in[c] - m) / sum;  // expect: slow-math-in-loop, uncoalesced-access
}

void launch_softmax(const float* x, float* y, int rows, int cols) {
    softmax_thread_row<<<(rows + 127) / 128, 128>>>(x, y, rows, cols);
}
