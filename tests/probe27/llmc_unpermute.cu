// launch: grid cdiv(B * NH * N * d, 256) block 256
// sizes: B=2 N=64 NH=4 d=32
// expect: gather|transpose-tile
// llm.c attention_forward: (B, NH, N, d) back to (B, N, NH, d)
__global__ void unpermute_kernel(const float* inp, float *out, int B, int N, int NH, int d) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < B * NH * N * d) {
        int b = idx / (NH * N * d);
        int rest = idx % (NH * N * d);
        int nh_ = rest / (N * d);
        rest = rest % (N * d);
        int n = rest / d;
        int d_ = rest % d;
        int other_idx = (b * NH * N * d) + (n * NH * d) + (nh_ * d) + d_;
        out[other_idx] = __ldcs(&inp[idx]);
    }
}
