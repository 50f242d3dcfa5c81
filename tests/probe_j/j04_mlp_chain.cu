// style: LLM hobby repo two-stage projection (hidden = x*W1, out = hidden*W2), index helpers as lambdas-in-macros, 1D flattened threads
// launch: grid cdiv(rows * hidden, 256) block 256
// sizes: rows=67 dim=223 hidden=141
// kernel: proj_up
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cuda_runtime.h>

#define IDX2(r, c, ld) ((r) * (ld) + (c))

// h[rows, hidden] = x[rows, dim] @ w1[dim, hidden]
__global__ void proj_up(const float* x, const float* w1, float* h, int rows, int dim, int hidden) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= rows * hidden) return;
    int r = tid / hidden;
    int c = tid % hidden;
    float s = 0.f;
    #pragma unroll 4
    for (int d = 0; d < dim; ++d) s += x[IDX2(r, d, dim)] * w1[IDX2(d, c, hidden)];
    h[IDX2(r, c, hidden)] = s;
}

// y[rows, dim] = h[rows, hidden] @ w2[hidden, dim]
__global__ void proj_down(const float* h, const float* w2, float* y, int rows, int hidden, int dim) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= rows * dim) return;
    int r = tid / dim;
    int c = tid - r * dim;
    float s = 0.f;
    for (int k = 0; k < hidden; ++k) s += h[IDX2(r, k, hidden)] * w2[IDX2(k, c, dim)];
    y[IDX2(r, c, dim)] = s;
}
