// (B, T, NH, hs) -> (B, NH, T, hs): blockIdx.z the batch, blockIdx.y the token, threads over NH * hs
__global__ void split_heads(const float* __restrict__ x, float* __restrict__ y, int B, int T, int NH, int hs) {
    const int b = blockIdx.z;
    const int t = blockIdx.y;
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= NH * hs) return;
    const int h = c / hs;
    const int e = c % hs;
    y[((b * NH + h) * T + t) * hs + e] = x[(b * T + t) * NH * hs + c];
}
