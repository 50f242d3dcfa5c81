// launch: grid cdiv(HS, 32), cdiv(T, 8), NH block 32, 8
// sizes: NH T HS
// reference: out = tril(att) @ v per head
// recognise: causal, batch z
__global__ void attn_av(float* out, const float* att, const float* v, int T, int HS) {
    int h = blockIdx.z;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = blockIdx.y * blockDim.y + threadIdx.y;
    if (t < T && i < HS) {
        const float* att_t = att + (size_t)h * T * T + (size_t)t * T;
        const float* vh = v + (size_t)h * T * HS;
        float acc = 0.0f;
        for (int t2 = 0; t2 <= t; t2++) acc += att_t[t2] * vh[t2 * HS + i];
        out[(size_t)h * T * HS + t * HS + i] = acc;
    }
}
