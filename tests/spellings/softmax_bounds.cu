// launch: grid cdiv(N, 256) block 256
// expect: online max and sum; spread the loop(s) on line 11, 16, 17 over a block per row
namespace kern {
__global__ void __launch_bounds__(256) softmax_forward(float* out, const float* inp, int N, int C) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= N) {
        return;
    }
    const float* x = inp + row * C;
    float m = -INFINITY;
    for (int j = 0; j < C; ++j) {
        const float v = x[j];
        if (v > m) m = v;
    }
    float s = 0.0f;
    for (int j = 0; j < C; ++j) s += expf(x[j] - m);
    for (int j = 0; j < C; ++j) out[row * C + j] = expf(x[j] - m) / s;
}
}  // namespace kern
