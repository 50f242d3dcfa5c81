// negative: the tree stops at 64 and a warp finishes by hand but stops at 2 (element 1 is never added: not a
// complete tree; the full warp-synchronous tail is read as a tree: restructure/warptail.py, tests/test_warptail.py)
__global__ void stops_early(const float* x, float* out, int n) {
    __shared__ float s_[256];
    int t = threadIdx.x, i = blockIdx.x * 256 + t;
    s_[t] = i < n ? x[i] : 0.f;
    __syncthreads();
    for (int s = 128; s > 32; s >>= 1) {
        if (t < s) s_[t] += s_[t + s];
        __syncthreads();
    }
    if (t < 32) { volatile float* v = s_; v[t] += v[t + 32]; v[t] += v[t + 16]; v[t] += v[t + 8]; v[t] += v[t + 4]; v[t] += v[t + 2]; }
    if (t == 0) out[blockIdx.x] = s_[0];
}
