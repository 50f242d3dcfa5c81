// style: GitHub Conway's Game of Life CUDA port; int grid (0/1), counts the 8 neighbours with explicit bounds checks (no wraparound), writes next generation to a separate array
// launch: grid cdiv(cols, 32), cdiv(rows, 8) block 32, 8
// sizes: rows=173 cols=211
// expect: stencil-tile
__global__ void life_step(const int *grid, int *newGrid, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= rows || c >= cols) return;

    int alive = 0;
    for (int dr = -1; dr <= 1; ++dr) {
        for (int dc = -1; dc <= 1; ++dc) {
            if (dr == 0 && dc == 0) continue;
            int rr = r + dr, cc = c + dc;
            if (rr >= 0 && rr < rows && cc >= 0 && cc < cols)
                alive += grid[rr * cols + cc];
        }
    }

    int me = grid[r * cols + c];
    // B3/S23
    if (me == 1 && (alive == 2 || alive == 3))
        newGrid[r * cols + c] = 1;
    else if (me == 0 && alive == 3)
        newGrid[r * cols + c] = 1;
    else
        newGrid[r * cols + c] = 0;
}
