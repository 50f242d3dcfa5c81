// a scaled transpose of doubles, an early return on the column, size_t offsets
#define TILE_W 32
#define TILE_ROWS 8
__global__ void scaled_transpose(double* out, const double* in, int m, int n, double alpha) {
    int col = blockIdx.x * TILE_W + threadIdx.x;
    int row0 = blockIdx.y * TILE_W + threadIdx.y;
    if (col >= n) return;
    for (int dy = 0; dy < TILE_W; dy += TILE_ROWS) {
        int row = row0 + dy;
        if (row < m) out[(size_t)col * m + row] = alpha * in[(size_t)row * n + col];
    }
}
