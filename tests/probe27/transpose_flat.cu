// launch: grid cdiv(rows * cols, 256) block 256
// sizes: rows=500 cols=700
// expect: transpose-tile
// transpose with a flat thread index (a common first attempt)
__global__ void transpose_flat(const float *A, float *At, int rows, int cols)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < rows * cols) {
        int r = tid / cols;
        int c = tid % cols;
        At[c * rows + r] = A[tid];
    }
}
