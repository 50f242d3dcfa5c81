// style: grid-stride loop over all outputs (fixed grid of 132 blocks, i = idx / p, j = idx % p)
// launch: grid 132 block 256
// sizes: n=149 m=137 p=211
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
__global__ void matmul_grid_stride(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ c, int n, int m, int p)
{
    // a is n x m, b is m x p, c is n x p
    for (int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < n * p; idx += blockDim.x * gridDim.x) {
        int i = idx / p;
        int j = idx % p;
        float s = 0.0f;
        for (int k = 0; k < m; k++)
            s += a[i * m + k] * b[k * p + j];
        c[idx] = s;
    }
}
