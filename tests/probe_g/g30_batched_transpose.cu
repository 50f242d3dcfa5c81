// style: batched transpose (batch, rows, cols) -> (batch, cols, rows) with the batch taken from blockIdx.z and pointer offsets per slice
// launch: grid cdiv(cols, 16), cdiv(rows, 16), batch block 16, 16
// sizes: batch=9 rows=187 cols=141
// expect: transpose-tile
__global__ void batched_transpose(float *dst, const float *src, int batch, int rows, int cols)
{
    const int tx = blockIdx.x * blockDim.x + threadIdx.x;   // column in src
    const int ty = blockIdx.y * blockDim.y + threadIdx.y;   // row in src
    const int bz = blockIdx.z;
    if (bz >= batch) return;

    const float *s = src + (size_t)bz * rows * cols;
    float *o = dst + (size_t)bz * rows * cols;
    if (tx < cols && ty < rows) {
        o[tx * rows + ty] = s[ty * cols + tx];
    }
}
