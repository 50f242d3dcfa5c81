// negative: an update (+=) of the transpose
__global__ void add_transpose(float* out, const float* in, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < n && y < n) out[x * n + y] += in[y * n + x];
}
