// style: SHOC-like gemv turned into a matrix product: one thread per matrix row looping over nvec vectors, unsigned indices, while-loop dot
// launch: grid cdiv(m, 128) block 128
// sizes: m=131 k=67 nvec=29
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce

// Y[v][row] = sum_c A[row][c] * X[v][c]   for every vector v  (i.e. Y^T = A * X^T)
__global__ void mv_batched(unsigned m, unsigned k, unsigned nvec,
                           const float *A, const float *X, float *Y)
{
    unsigned row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m)
        return;

    const float *a = A + row * k;
    for (unsigned v = 0; v < nvec; v++) {
        const float *x = X + v * k;
        float s = 0.0f;
        unsigned c = 0;
        while (c < k) {
            s += a[c] * x[c];
            c++;
        }
        Y[v * m + row] = s;
    }
}
