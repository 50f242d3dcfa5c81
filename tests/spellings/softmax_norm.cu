// launch: grid cdiv(N, 256) block 256
// expect: online max and sum
#define NEG_INF (-3.402823466e+38f)
__global__ void softmax_forward(float* __restrict__ out, const float* __restrict__ inp, const int N, const int C) {
    const unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= N) return;
    const float* row_in = inp + (size_t)r * C;
    float m = NEG_INF;
    for (int c = 0; c < C; ++c) m = fmaxf(m, row_in[c]);
    float s = 0.f;
    for (int c = 0; c < C; ++c) s += __expf(row_in[c] - m);
    const float inv = 1.f / s;
    for (int c = 0; c < C; ++c) out[(size_t)r * C + c] = __expf(row_in[c] - m) * inv;
}
