// launch: grid cdiv(rows, 64) block 64
// sizes: rows=37 cols=101
// expect: row-warp|row-block
// a row sum added to memory outside the loop: a team per row does the update on its first lane only
__global__ void k(const float* __restrict__ in, float* __restrict__ totals, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.f;
    for (int c = 0; c < cols; ++c) s += in[r * cols + c];
    totals[r] += s;
}
