// launch: grid cdiv(cols, 128) block 128
// sizes: rows=1000 cols=3000
// expect: column
// column sums with a register accumulator and size_t offsets
__global__ void column_sum(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float s = 0.0f;
    for (int r = 0; r < rows; ++r)
        s += in[(size_t)r * cols + c];
    out[c] = s;
}
