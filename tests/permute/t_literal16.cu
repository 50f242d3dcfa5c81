// a transpose with the tile size written as a literal (blocks of 16 x 16)
__global__ void transpose16(const float* in, float* out, int rows, int cols) {
    int c = blockIdx.x * 16 + threadIdx.x;
    int r = blockIdx.y * 16 + threadIdx.y;
    if (r < rows && c < cols)
        out[c * rows + r] = in[r * cols + c];
}
