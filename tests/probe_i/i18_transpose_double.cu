// style: NVIDIA "Efficient matrix transpose" blog transposeNaive (TILE_DIM 32, BLOCK_ROWS 8, each thread loops over j += BLOCK_ROWS) ported to double with bounds guards for non-square nrow x ncol
// launch: grid cdiv(ncol, 32), cdiv(nrow, 32) block 32, 8
// sizes: nrow=171 ncol=229
// expect: transpose-tile
#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transposeNaiveDouble(double *odata, const double *idata, int nrow, int ncol)
{
    int x = blockIdx.x * TILE_DIM + threadIdx.x;   // column in idata
    int y = blockIdx.y * TILE_DIM + threadIdx.y;   // row in idata

    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (x < ncol && (y + j) < nrow)
            odata[x * nrow + (y + j)] = idata[(y + j) * ncol + x];
    }
}
