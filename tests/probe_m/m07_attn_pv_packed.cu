// style: llm.c-like flat 1-D index decoded with / and % into (b, t, h, d); V is read out of the packed qkv buffer (B, T, 3C) and the causal loop stops at t2 <= t
// launch: grid cdiv(B*T*C, 128) block 128
// sizes: B=2 T=67 C=69 NH=3
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
__global__ void attention_value_kernel(float* out, const float* att, const float* qkv,
                                       int B, int T, int C, int NH) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * T * C) return;

    int hs = C / NH;               // head size
    int d = idx % hs;
    int h = (idx / hs) % NH;
    int t = (idx / C) % T;
    int b = idx / (T * C);

    // att: (B, NH, T, T) post-softmax; only t2 <= t is meaningful
    const float* att_bth = att + b * NH * T * T + h * T * T + t * T;
    // value vectors sit at offset 2*C inside each (b, t2) row of qkv
    const float* v_bh = qkv + b * T * 3 * C + 2 * C + h * hs + d;

    float val = 0.0f;
    for (int t2 = 0; t2 <= t; t2++) {
        val += att_bth[t2] * v_bh[t2 * 3 * C];
    }
    out[idx] = val;   // (B, T, NH, hs) == (B, T, C)
}
