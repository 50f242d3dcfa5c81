// style: llm.c attention_value_kernel1 reworked to one thread per (t, i) with the (b, h) pair on blockIdx.z; keeps llm.c's out_bth/att_bth/value_t2 pointer names, zeroes out_bth[i] then accumulates att * v straight into global memory over the causal range t2 <= t; v read from the packed (B, T, 3C) qkv at +2C
// launch: grid cdiv(C/NH, 32), cdiv(T, 8), B*NH block 32, 8
// sizes: B=3 T=41 C=75 NH=3
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

__global__ void attention_value_kernel1(float* out, const float* att, const float* inp,
                                        int B, int T, int C, int NH) {
    // out is (B, T, C), att is (B, NH, T, T), inp is (B, T, 3C) holding q,k,v
    int C3 = C * 3;
    int hs = C / NH; // head size
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = blockIdx.y * blockDim.y + threadIdx.y;
    int bh = blockIdx.z;
    int h = bh % NH;
    int b = bh / NH;
    if (b >= B || t >= T || i >= hs) { return; }

    float* out_bth = out + b * T * C + t * C + h * hs;
    const float* att_bth = att + b * NH * T * T + h * T * T + t * T;

    out_bth[i] = 0.0f;
    for (int t2 = 0; t2 <= t; t2++) {
        const float* value_t2 = inp + b * T * C3 + t2 * C3 + h * hs + C * 2; // +C*2 because it's value
        float att_btht2 = att_bth[t2];
        out_bth[i] += att_btht2 * value_t2[i];
    }
}

void attention_value1(float* out, const float* att, const float* inp,
                      int B, int T, int C, int NH) {
    int hs = C / NH;
    dim3 block(32, 8);
    dim3 grid((hs + 31) / 32, (T + 7) / 8, B * NH);
    attention_value_kernel1<<<grid, block>>>(out, att, inp, B, T, C, NH);
}
