// launch: grid 64 block 256
// sizes: rows=700 cols=5000
// expect: column
// squared norm of every column, columns strided over the whole grid
__global__ void col_sqnorm(const float* __restrict__ X, float* __restrict__ norms, int rows, int cols)
{
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < cols; j += blockDim.x * gridDim.x) {
        float s = 0.f;
        for (int i = 0; i < rows; ++i) {
            float v = X[i * cols + j];
            s += v * v;
        }
        norms[j] = s;
    }
}
