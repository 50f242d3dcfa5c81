// style: 1-D launch transpose (r = idx / cols, c = idx % cols, reads in order, scattered writes)
// launch: grid cdiv(rows * cols, 256) block 256
// sizes: rows=347 cols=263
// expect: transpose-tile
__global__ void transpose1d(const float *in, float *out, int rows, int cols)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < rows * cols) {
        int r = idx / cols;
        int c = idx % cols;
        out[c * rows + r] = in[idx];
    }
}
