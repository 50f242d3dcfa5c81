// style: old C-style numerical code; column-wise L2 normalisation in place of a row-major m x n matrix with leading dimension lda, A(r,c) indexing macro over the pointer `a`, each thread does two passes down its column (sum of squares, then divide), epsilon guard against a zero column
// launch: grid cdiv(n, 64) block 64
// sizes: m=59 n=85 lda=87
// expect: column
#include <cuda_runtime.h>

#define A(r, c) a[(r) * lda + (c)]

__global__ void normalize_columns(float *a, int m, int n, int lda)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n) return;

    float ss = 0.0f;
    for (int r = 0; r < m; r++)
        ss += A(r, c) * A(r, c);

    float nrm = sqrtf(ss);
    if (nrm < 1e-12f) return;
    float inv = 1.0f / nrm;
    for (int r = 0; r < m; r++)
        A(r, c) *= inv;
}
