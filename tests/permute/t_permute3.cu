// (B, N, H) -> (B, H, N): the last two dimensions swapped, a 3-D grid
__global__ void swap_last(const float* __restrict__ x, float* __restrict__ y, int B, int N, int H) {
    int h = blockIdx.x * blockDim.x + threadIdx.x;
    int n = blockIdx.y * blockDim.y + threadIdx.y;
    int b = blockIdx.z;
    if (h < H && n < N && b < B) {
        y[(b * H + h) * N + n] = x[(b * N + n) * H + h];
    }
}
