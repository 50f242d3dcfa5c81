// the product accumulated in the output itself, with a scale after the sum
typedef float real;
__global__ void atx(const real* a, const real* v, real* out, int n, int m, real alpha) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < m) {
        out[c] = 0;
        for (int r = 0; r < n; ++r) out[c] += a[r * m + c] * v[r];
        out[c] *= alpha;
    }
}
