// style: Stack Overflow answer "transpose a non-square matrix" with a (rows, cols) pair and a 1-D launch, r = t / cols, c = t % cols
// launch: grid cdiv(rows * cols, 256) block 256
// sizes: rows=187 cols=403
// expect: transpose-tile
__global__ void transpose_rect(const float *A, float *At, int rows, int cols)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < rows * cols) {
        int r = t / cols;
        int c = t % cols;
        At[c * rows + r] = A[t];     // At is cols x rows
    }
}
