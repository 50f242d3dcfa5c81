// negative: (B, N, H, d) -> (B, H, N, d) with d on the lanes: both sides already contiguous
__global__ void heads(const float* x, float* y, int N, int H, int d) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    int n = blockIdx.y * blockDim.y + threadIdx.y;
    int bh = blockIdx.z, b = bh / H, h = bh % H;
    if (e < d && n < N) y[((b * H + h) * N + n) * d + e] = x[((b * N + n) * H + h) * d + e];
}
