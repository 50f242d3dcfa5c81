// launch: grid cdiv(T, 32), cdiv(T, 8), NH block 32, 8
// sizes: NH T HS
// reference: att = scale * q @ k.T (causal, masked to -inf above the diagonal)
// recognise: condition, batch z, transposed
__global__ void attn_scores(float* att, const float* q, const float* k, int T, int HS, float scale) {
    int h = blockIdx.z;
    int t2 = blockIdx.x * blockDim.x + threadIdx.x;
    int t = blockIdx.y * blockDim.y + threadIdx.y;
    if (t < T && t2 < T) {
        const float* qt = q + (size_t)h * T * HS + t * HS;
        const float* kt = k + (size_t)h * T * HS + t2 * HS;
        float val = 0.0f;
        if (t2 <= t) {
            for (int i = 0; i < HS; i++) val += qt[i] * kt[i];
            val *= scale;
        } else {
            val = -INFINITY;
        }
        att[(size_t)h * T * T + t * T + t2] = val;
    }
}
