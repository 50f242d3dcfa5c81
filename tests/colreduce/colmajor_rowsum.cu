// row sums of a column-major matrix (element (i, j) at A[i + j * lda]), a block per row, one thread walking it
__global__ void row_sums_colmajor(const double* A, double* y, int m, int n, int lda)
{
    const int i = blockIdx.x;
    if (threadIdx.x != 0) return;
    double acc = 0.0;
    for (int j = 0; j < n; j++) {
        acc += A[i + j * lda];
    }
    y[i] = acc;
}
