// style: LLM inference toy (bf16 activations and weights, float bias/output, y = x W^T + b), with host launcher
// launch: grid cdiv(out_dim, 32), cdiv(n_tokens, 8) block 32, 8
// sizes: n_tokens=131 in_dim=193 out_dim=227
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
#include <cuda_bf16.h>
#include <cuda_runtime.h>

typedef __nv_bfloat16 bf16;

__global__ void linear_bf16_kernel(const bf16* x, const bf16* w, const float* b, float* y,
                                   int n_tokens, int in_dim, int out_dim)
{
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    int t = blockIdx.y * blockDim.y + threadIdx.y;
    if (t >= n_tokens || o >= out_dim) return;
    const bf16* xr = x + (size_t)t * in_dim;
    const bf16* wr = w + (size_t)o * in_dim;
    float acc = b[o];
    for (int i = 0; i < in_dim; i++)
        acc += __bfloat162float(xr[i]) * __bfloat162float(wr[i]);
    y[(size_t)t * out_dim + o] = acc;
}
