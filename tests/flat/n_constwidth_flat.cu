// the row length in constant memory, not a kernel parameter
__constant__ int c_width;
__global__ void smooth(float* out, const float* in, int total) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= total) return;
    int r = idx / c_width, c = idx % c_width;
    if (r < 1 || c < 1 || c >= c_width - 1 || idx + c_width >= total) return;
    out[idx] = 0.5f * in[idx] + 0.125f * (in[idx - 1] + in[idx + 1] + in[idx - c_width] + in[idx + c_width]);
}
