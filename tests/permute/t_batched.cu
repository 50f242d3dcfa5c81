// a batch of transposes, the batch on blockIdx.z, sizes in size_t, a scale
__global__ void batched_transpose(float* dst, const float* src, float alpha, int n, int m) {
    size_t x = blockIdx.x * blockDim.x + threadIdx.x;
    size_t y = blockIdx.y * blockDim.y + threadIdx.y;
    size_t b = blockIdx.z;
    if (x < (size_t)m && y < (size_t)n) {
        const float* s = src + b * n * m;
        float* d = dst + b * n * m;
        d[x * n + y] = alpha * s[y * m + x];
    }
}
