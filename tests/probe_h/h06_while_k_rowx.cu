// style: Stack Overflow question code: row taken from threadIdx.x, column from threadIdx.y, inner product with a while (k < n_inner) loop
// launch: grid cdiv(n_rows, 16), cdiv(n_cols, 16) block 16, 16
// sizes: n_rows=187 n_inner=223 n_cols=141
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce|matmul-library

// c (n_rows x n_cols) = a (n_rows x n_inner) * b (n_inner x n_cols), row-major
__global__ void mm_while(const float *a, const float *b, float *c,
                         int n_rows, int n_inner, int n_cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    int cc = blockIdx.y * blockDim.y + threadIdx.y;

    if (r < n_rows && cc < n_cols) {
        float s = 0.0f;
        int k = 0;
        while (k < n_inner) {
            s += a[r * n_inner + k] * b[k * n_cols + cc];
            k++;
        }
        c[r * n_cols + cc] = s;
    }
}
