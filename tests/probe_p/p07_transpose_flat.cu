// style: GitHub student "transpose_naive" with a flat 1-D launch; unsigned int throughout, row/col recovered from the thread id by / and %, coalesced read and strided write
// launch: grid cdiv(rows * cols, 256) block 256
// sizes: rows=523 cols=97
// expect: transpose-tile

/*
 * odata (cols x rows) = transpose of idata (rows x cols), both row-major.
 * One thread per input element.
 */
__global__ void transposeNaive1D(float *odata, const float *idata,
                                 unsigned int rows, unsigned int cols)
{
    unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int total = rows * cols;

    if (tid < total) {
        unsigned int r = tid / cols;
        unsigned int c = tid % cols;
        odata[c * rows + r] = idata[tid];
    }
}
