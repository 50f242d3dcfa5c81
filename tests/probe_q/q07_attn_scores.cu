// style: llm.c-like attention_query_key_kernel reworked with an in-kernel loop over heads; Q/K laid out (NH, T, HS), pre-softmax scores = scale * Q K^T written to (NH, T, T), __device__ helper for the dot product, const locals
// launch: grid cdiv(T, 16), cdiv(T, 16) block 16, 16
// sizes: NH=3 T=67 HS=37 scale=0.1644
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce

__device__ float dot_hs(const float* q, const float* k, int hs)
{
    float acc = 0.0f;
    for (int d = 0; d < hs; ++d) acc += q[d] * k[d];
    return acc;
}

__global__ void attn_scores_kernel(float* preatt, const float* Q, const float* K,
                                   int NH, int T, int HS, float scale)
{
    const int t1 = blockIdx.y * blockDim.y + threadIdx.y;   // query position
    const int t2 = blockIdx.x * blockDim.x + threadIdx.x;   // key position
    if (t1 >= T || t2 >= T) return;

    for (int h = 0; h < NH; ++h) {
        const float* qrow = Q + ((size_t)h * T + t1) * HS;
        const float* krow = K + ((size_t)h * T + t2) * HS;
        preatt[((size_t)h * T + t1) * T + t2] = scale * dot_hs(qrow, krow, HS);
    }
}
