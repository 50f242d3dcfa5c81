// style: SHOC/BLAS-style gemv_t -- one thread per column, counter declared outside, while loop down the rows with a row pointer bumped by N
// launch: grid cdiv(N, 64) block 64
// sizes: M=67 N=129
// expect: column
#include <cuda_runtime.h>

/* y[j] = sum_i A[i][j] * x[i],  A is M x N row-major */
__global__ void gemv_transposed(const float *A, const float *x, float *y, int M, int N)
{
    int j = threadIdx.x + blockIdx.x * blockDim.x;
    if (j >= N) return;

    const float *rowp = A;
    float s = 0.f;
    int i = 0;
    while (i < M) {
        s += rowp[j] * x[i];
        rowp += N;
        ++i;
    }
    y[j] = s;
}
