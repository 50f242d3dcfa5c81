// the same product with a while loop, the vector first, a size_t row offset and an early return
__global__ void gemv_t(float* __restrict__ y, const float* __restrict__ A, const float* __restrict__ x,
                       int rows, int cols) {
    const int col = threadIdx.x + blockIdx.x * blockDim.x;
    if (col >= cols) return;
    float acc = 0.f;
    int r = 0;
    while (r < rows) {
        acc += x[r] * A[(size_t)r * cols + col];
        ++r;
    }
    y[col] = acc;
}
