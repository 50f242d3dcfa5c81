// Round I's Game of Life step: the 8 neighbours counted in two loops over -1..1 that skip the centre with
// `continue` (taps.unroll_taps settles it per tap: taps.decided_jumps) and guard each load, three stores of the
// point in an if/else chain (passes.merge_branch_stores).
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
