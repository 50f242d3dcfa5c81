// style: llm.c dev/cuda attention_query_key kernel, but grid-stride over (b,h,t,t2) with the causal mask as an early `continue`
// launch: grid cdiv(B*NH*T*T, 256) block 256
// sizes: B=3 NH=5 T=37 HS=24
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <math.h>

// q, k: (B, NH, T, HS)   att: (B, NH, T, T)
__global__ void attention_query_key_kernel(float* att, const float* q, const float* k,
                                           int B, int NH, int T, int HS)
{
    const float scale = 1.0f / sqrtf((float)HS);
    int total_threads = B * NH * T * T;
    for (int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < total_threads;
         idx += blockDim.x * gridDim.x) {
        int t2 = idx % T;
        int t = (idx / T) % T;
        int bh = idx / (T * T);
        if (t2 > t) {
            att[idx] = -INFINITY;
            continue;
        }
        const float* query_t = q + (bh * T + t) * HS;
        const float* key_t2 = k + (bh * T + t2) * HS;
        float val = 0.0f;
        for (int i = 0; i < HS; i++) {
            val += query_t[i] * key_t2[i];
        }
        att[idx] = val * scale;
    }
}
