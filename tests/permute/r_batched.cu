// a batch of transposes on blockIdx.z, 32 x 8 threads walking 32 x 32 tiles, unsigned indices
__global__ void batch_transpose(const float* __restrict__ a, float* __restrict__ at, unsigned R, unsigned C) {
    const unsigned x = blockIdx.x * 32 + threadIdx.x;
    const unsigned y = blockIdx.y * 32 + threadIdx.y;
    const float* A = a + (size_t)blockIdx.z * R * C;
    float* T = at + (size_t)blockIdx.z * R * C;
    for (unsigned j = 0; j < 32; j += 8)
        if (x < C && y + j < R) T[x * R + y + j] = A[(y + j) * C + x];
}
