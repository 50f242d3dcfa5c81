// a weighted column max: the weight per row shared by every column
__global__ void colmax_w(const float* x, const float* w, float* out, int R, int C) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= C) return;
    float m = -1e30f;
    for (int i = 0; i < R; ++i) m = fmaxf(m, w[i] * x[i * C + j]);
    out[j] = m;
}
