// the other way round: the store contiguous, the load read down a column, rows in a local, unrolled
#define TILE 32
#define ROWS 4
__global__ void gather_transpose(float* __restrict__ dst, const float* __restrict__ src, int rows, int cols) {
    const int c = blockIdx.x * TILE + threadIdx.x;
#pragma unroll
    for (int k = 0; k < TILE; k += ROWS) {
        const int r = blockIdx.y * TILE + threadIdx.y + k;
        if (r < rows && c < cols) dst[r * cols + c] = src[c * rows + r];
    }
}
