// style: llm.c-like attention value step out = att @ V, one thread per output scalar with a flat 1-D index unpacked by / and %; att (B,NH,T,T), v and out (B,T,NH,hs)
// launch: grid cdiv(B*T*NH*hs, 256) block 256
// sizes: B=3 T=77 NH=5 hs=40
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
__global__ void attention_value_kernel(float* out, const float* att, const float* v,
                                       int B, int T, int NH, int hs)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total = B * T * NH * hs;
    if (idx < total) {
        int d = idx % hs;
        int h = (idx / hs) % NH;
        int t = (idx / (hs * NH)) % T;
        int b = idx / (hs * NH * T);

        const float* att_bth = att + b * NH * T * T + h * T * T + t * T;
        float acc = 0.0f;
        for (int t2 = 0; t2 < T; t2++) {
            const float* v_t2 = v + b * T * NH * hs + t2 * NH * hs + h * hs;
            acc += att_bth[t2] * v_t2[d];
        }
        out[idx] = acc;
    }
}
