// style: llm.c attention_query_key_kernel1: one thread per (b, h, t, t2) score flattened into blockIdx.x over B*NH*T*T, q and k read from the packed (B, T, 3C) qkv buffer at +0 and +C, causal mask written as early return with -INFINITY, scale spelled 1.0 / sqrtf(hs) (double literal)
// launch: grid cdiv(B*NH*T*T, 256) block 256
// sizes: B=3 T=37 C=75 NH=3
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>
#include <math.h>

__global__ void attention_query_key_kernel1(float* preatt, const float* inp,
                                            int B, int T, int C, int NH) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total_threads = B * NH * T * T;

    if (idx >= total_threads) { return; }

    int t2 = idx % T;
    int t = (idx / T) % T;
    if (t2 > t) {
        // autoregressive mask
        preatt[idx] = -INFINITY;
        return;
    }
    int h = (idx / (T * T)) % NH;
    int b = idx / (NH * T * T);

    int C3 = C * 3;
    int hs = C / NH; // head size
    const float* query_t = inp + b * T * C3 + t * C3 + h * hs;
    const float* key_t2 = inp + b * T * C3 + t2 * C3 + h * hs + C; // +C because it's key

    // (query_t) dot (key_t2)
    float val = 0.0f;
    for (int i = 0; i < hs; i++) {
        val += query_t[i] * key_t2[i];
    }
    val *= 1.0 / sqrtf(hs);

    preatt[idx] = val;
}

void attention_query_key1(float* preatt, const float* inp,
                          int B, int T, int C, int NH, const int block_size) {
    int total_threads = B * NH * T * T;
    int num_blocks = (total_threads + block_size - 1) / block_size;
    attention_query_key_kernel1<<<num_blocks, block_size>>>(preatt, inp, B, T, C, NH);
}
