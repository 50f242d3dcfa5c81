// style: torch.cumsum(dim=-1)-like naive kernel from a custom op (one thread per row, sequential inclusive scan)
// launch: grid cdiv(rows, 128) block 128
// sizes: rows=331 cols=257
// template: float
// expect: block-scan|scan-library|row-scan
#include <cuda_runtime.h>

template <typename scalar_t>
__global__ void cumsum_rows_kernel(const scalar_t* __restrict__ x, scalar_t* __restrict__ y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    scalar_t acc = 0;
    for (int c = 0; c < cols; ++c) {
        acc += x[r * cols + c];
        y[r * cols + c] = acc;
    }
}

template __global__ void cumsum_rows_kernel<float>(const float*, float*, int, int);

void cumsum_rows(const float* x, float* y, int rows, int cols)
{
    const int threads = 128;
    cumsum_rows_kernel<float><<<(rows + threads - 1) / threads, threads>>>(x, y, rows, cols);
}
