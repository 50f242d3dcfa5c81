// style: llm.c attention_query_key_kernel variant -- packed qkv (B,T,3C), (b,h) folded into blockIdx.y, query row from the z dimension, scale passed in
// launch: grid cdiv(T, 32), B * NH, cdiv(T, 4) block 32, 1, 4
// sizes: B=3 T=67 C=120 NH=5 scale=0.2041
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

// preatt is (B, NH, T, T); inp is (B, T, 3C) holding Q,K,V
__global__ void attention_query_key_kernel(float* preatt, const float* inp,
                                           int B, int T, int C, int NH, float scale) {
    int t2 = blockIdx.x * blockDim.x + threadIdx.x;   // key position
    int bh = blockIdx.y;                              // b * NH + h
    int t  = blockIdx.z * blockDim.z + threadIdx.z;   // query position
    if (t >= T || t2 >= T || bh >= B * NH) return;

    int b = bh / NH;
    int h = bh % NH;
    int C3 = C * 3;
    int hs = C / NH;

    const float* query_t = inp + b * T * C3 + t * C3 + h * hs;
    const float* key_t2  = inp + b * T * C3 + t2 * C3 + h * hs + C;

    float val = 0.0f;
    for (int i = 0; i < hs; i++) {
        val += query_t[i] * key_t2[i];
    }
    preatt[bh * T * T + t * T + t2] = val * scale;
}
