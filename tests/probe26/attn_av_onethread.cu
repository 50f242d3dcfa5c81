// launch: grid cdiv(HS, 32), cdiv(T, 8), NH block 32, 8
// sizes: T=300 HS=64 NH=4
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
__global__ void attn_av(float* out, const float* att, const float* v, int T, int HS, int NH) {
    int h = blockIdx.z;
    int t = blockIdx.y * blockDim.y + threadIdx.y;
    int d = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < T && d < HS) {
        const float* a = att + (size_t)h * T * T + (size_t)t * T;
        float acc = 0.0f;
        for (int s = 0; s <= t; ++s) acc += a[s] * v[((size_t)h * T + s) * HS + d];
        out[((size_t)h * T + t) * HS + d] = acc;
    }
}
