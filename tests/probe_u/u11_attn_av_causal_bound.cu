// style: GPT inference toy (nanoGPT-to-CUDA port) computing y = att @ v one output element per thread: flat x index over (t, d) split with / and %, head from blockIdx.y, batch from blockIdx.z, v and y in interleaved (B, T, NH, HS) layout, k loop bounded causally by t2 <= t instead of reading the zeros
// launch: grid cdiv(T * HS, 128), NH, B block 128
// sizes: B=2 NH=3 T=71 HS=37
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

// att : (B, NH, T, T) softmax-ed probabilities (upper triangle is zero)
// v   : (B, T, NH, HS)
// y   : (B, T, NH, HS)
__global__ void attn_weighted_sum(const float *att, const float *v, float *y,
                                  int B, int NH, int T, int HS)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int h = blockIdx.y;
    int b = blockIdx.z;
    if (idx >= T * HS)
        return;

    int t = idx / HS;
    int d = idx % HS;

    const float *att_row = att + (((size_t)b * NH + h) * T + t) * T;
    float acc = 0.0f;
    for (int t2 = 0; t2 <= t; t2++) {
        acc += att_row[t2] * v[(((size_t)b * T + t2) * NH + h) * HS + d];
    }
    y[(((size_t)b * T + t) * NH + h) * HS + d] = acc;
}
