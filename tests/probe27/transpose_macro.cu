// launch: grid cdiv(m, 16), cdiv(n, 16) block 16, 16
// sizes: m=600 n=456 lda=600 ldb=456
// expect: transpose-tile
// B = A^T with column-major style accessor macros, as ported Fortran code writes it
#define A(i, j) a[(i) + (j) * lda]
#define B(i, j) b[(i) + (j) * ldb]

__global__ void mtrans(int m, int n, const double *a, int lda, double *b, int ldb)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;   /* row of A, contiguous in column-major */
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < m && j < n)
        B(j, i) = A(i, j);
}
