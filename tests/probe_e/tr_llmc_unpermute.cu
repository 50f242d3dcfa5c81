// style: karpathy/llm.c attention_forward.cu unpermute_kernel ((B,NH,N,d) -> (B,N,NH,d), thread per input element)
// launch: grid cdiv(B * NH * N * d, 256) block 256
// sizes: B=2 N=67 NH=5 d=37
// expect: transpose-tile|gather
#include <cuda_runtime.h>

__global__ void unpermute_kernel(const float* inp, float *out, int B, int N, int NH, int d) {
   // out has shape (B, nh, N, d) but we need to unpermute it to (B, N, nh, d)
    int idx = blockIdx.x * blockDim.x + threadIdx.x;

    // out[b][n][nh_][d_] <- inp[b][nh_][n][d_]
    if (idx < B * NH * N * d) {
        int b = idx / (NH * N * d);
        int rest = idx % (NH * N * d);
        int nh_ = rest / (N * d);
        rest = rest % (N * d);
        int n = rest / d;
        int d_ = rest % d;

        int other_idx = (b * NH * N * d) + (n * NH * d) + (nh_ * d) + d_;
        out[other_idx] = inp[idx];
    }
}
