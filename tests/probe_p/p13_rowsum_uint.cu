// style: GitHub "row normalise" utility; typedef unsigned int uint, __restrict__ everywhere, row base pointer a + row*n_cols, two kernels in the file (row_sum then row_normalize)
// launch: grid cdiv(n_rows, 128) block 128
// sizes: n_rows=4099 n_cols=257
// kernel: row_sum
// expect: row-warp|row-block
#include <cstddef>

typedef unsigned int uint;

// s[row] = sum of row `row` of the n_rows x n_cols row-major matrix a
__global__ void row_sum(const float* __restrict__ a, float* __restrict__ s,
                        uint n_rows, uint n_cols)
{
    uint row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n_rows) {
        const float* p = a + (size_t)row * n_cols;
        float t = 0.f;
        for (uint j = 0; j < n_cols; ++j)
            t += p[j];
        s[row] = t;
    }
}

// a[row][j] /= s[row]; launched 2-D after row_sum
__global__ void row_normalize(float* __restrict__ a, const float* __restrict__ s,
                              uint n_rows, uint n_cols)
{
    uint j = blockIdx.x * blockDim.x + threadIdx.x;
    uint row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < n_rows && j < n_cols && s[row] != 0.f)
        a[(size_t)row * n_cols + j] /= s[row];
}
