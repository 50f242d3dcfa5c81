// style: numerical-methods homework "column sums" in double; long long indices with an explicit cast on blockIdx.x, thread per column, plain for-loop down the rows of a row-major matrix
// launch: grid cdiv(ncols, 128) block 128
// sizes: nrows=1001 ncols=333
// expect: column

// colsum[c] = sum_r A[r][c],  A is nrows x ncols, row-major.
// One thread owns one column and walks every row of it;
// long long so that nrows*ncols may exceed 2^31 in the big runs.
__global__ void column_sums(const double *A, double *colsum,
                            long long nrows, long long ncols)
{
    long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (c < ncols) {
        double acc = 0.0;
        for (long long r = 0; r < nrows; r++) {
            acc += A[r * ncols + c];
        }
        colsum[c] = acc;
    }
}
