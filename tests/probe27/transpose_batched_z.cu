// launch: grid cdiv(C, 32), cdiv(R, 8), B block 32, 8
// sizes: B=3 R=200 C=300
// expect: transpose-tile
// a batch of matrices transposed, the batch from blockIdx.z
__global__ void batched_transpose(float *dst, const float *src, int B, int R, int C)
{
    int b = blockIdx.z;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < C && row < R) {
        const float *s = src + (size_t)b * R * C;
        float *d = dst + (size_t)b * R * C;
        d[col * R + row] = s[row * C + col];
    }
}
