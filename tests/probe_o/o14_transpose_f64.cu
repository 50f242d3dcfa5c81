// style: NVIDIA-sample "transposeNaive" on doubles via a real_t typedef, size_t indices, single-letter names, IDX macro and __ldg read
// launch: grid cdiv(cols, 16), cdiv(rows, 16) block 16, 16
// sizes: rows=67 cols=131
// expect: transpose-tile|gather

typedef double real_t;

#define BLOCK_ROWS 16
#define IDX(i, j, ld) ((i) * (ld) + (j))

// o (cols x rows) = a^T,  a is rows x cols row-major.
// Reads are coalesced along x, writes are strided by `rows`.
__global__ void transposeNaive(real_t *__restrict__ o, const real_t *__restrict__ a,
                               size_t rows, size_t cols)
{
    size_t x = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t y = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= cols || y >= rows)
        return;
    o[IDX(x, y, rows)] = __ldg(a + IDX(y, x, cols));
}
