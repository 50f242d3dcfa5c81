// style: Fortran/BLAS-minded port, A column-major (n x k, lda = n), C column-major full n x n, threadIdx.x along i (contiguous in C)
// launch: grid cdiv(n, 64), cdiv(n, 4) block 64, 4
// sizes: n=141 k=223
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cuda_runtime.h>

#define A_(i, p) A[(i) + (size_t)(p) * n]
#define C_(i, j) C[(i) + (size_t)(j) * n]

/* dsyrk-ish, no triangle trick: every (i,j) computed */
extern "C" __global__ void ssyrk_full_cm(int n, int k, const float *__restrict__ A, float *__restrict__ C)
{
    const int i = blockIdx.x * 64 + threadIdx.x;
    const int j = blockIdx.y * 4 + threadIdx.y;
    if (i < n && j < n) {
        float t = 0.f;
        for (int p = 0; p < k; ++p)
            t += A_(i, p) * A_(j, p);
        C_(i, j) = t;
    }
}
