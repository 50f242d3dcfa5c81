// The attention's weighted sum of values, llm.c's first version: a thread per (b, t, h) in that index order
// (h the lowest digit), its row of hs outputs zeroed in global memory and accumulated there over t2 <= t.
// recognise: one sum per output in a local (passes.sums_into_locals), the column from the loop around the k loop
__global__ void att_value(float* out, const float* att, const float* inp, int B, int T, int C, int NH) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total_threads = B * T * NH;
    if (idx < total_threads) {
        int h = idx % NH;
        int t = (idx / NH) % T;
        int b = idx / (NH * T);
        int C3 = C * 3;
        int hs = C / NH;
        float* out_bth = out + b * T * C + t * C + h * hs;
        const float* att_bth = att + b * NH * T * T + h * T * T + t * T;
        for (int i = 0; i < hs; i++) { out_bth[i] = 0.0f; }
        for (int t2 = 0; t2 <= t; t2++) {
            const float* value_t2 = inp + b * T * C3 + t2 * C3 + h * hs + C * 2;
            float att_btt2 = att_bth[t2];
            for (int i = 0; i < hs; i++) {
                out_bth[i] += att_btt2 * value_t2[i];
            }
        }
    }
}
