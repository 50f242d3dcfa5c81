// the loop steps 4 rows but the block is 8 rows tall: rows overlap, nothing to fold
#define TILE 32
__global__ void transpose_overlap(float* out, const float* in, int n) {
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += 4)
        if (x < n && y + j < n) out[x * n + y + j] = in[(y + j) * n + x];
}
