// style: lecture-notes DGEMM -- double precision, IDX2R row-major macro, size_t indices, alpha only (no beta), plus a zero-fill kernel
// launch: grid cdiv(n, 16), cdiv(m, 16) block 16, 16
// sizes: m=67 n=129 k=45 alpha=0.75
// kernel: dgemm_alpha
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

#define IDX2R(i, j, ld) (((i) * (ld)) + (j))

__global__ void dzero(double *p, size_t len)
{
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t < len) p[t] = 0.0;
}

/* C = alpha * A * B ; A is m x k, B is k x n, C is m x n, all row major */
__global__ void dgemm_alpha(int m, int n, int k, double alpha,
                            const double *A, const double *B, double *C)
{
    size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t r = (size_t)blockIdx.y * blockDim.y + threadIdx.y;

    if (r < (size_t)m && c < (size_t)n) {
        double t = 0.0;
        for (size_t p = 0; p < (size_t)k; p++)
            t += A[IDX2R(r, p, k)] * B[IDX2R(p, c, n)];
        C[IDX2R(r, c, n)] = alpha * t;
    }
}
