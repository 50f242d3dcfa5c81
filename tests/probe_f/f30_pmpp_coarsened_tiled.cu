// style: PMPP ch. 6 thread coarsening of the tiled matmul (COARSE_FACTOR output columns per thread, M tile reused)
// launch: grid cdiv(width, 64), cdiv(width, 16) block 16, 16
// sizes: width=181
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#define TILE_WIDTH 16
#define COARSE_FACTOR 4

__global__ void matrixMulKernel(float* M, float* N, float* P, int width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int bx = blockIdx.x;  int by = blockIdx.y;
    int tx = threadIdx.x; int ty = threadIdx.y;

    // Identify the row and column of the P element to work on
    int row = by * TILE_WIDTH + ty;
    int colStart = bx * TILE_WIDTH * COARSE_FACTOR + tx;

    // Initialize Pvalue for all output elements
    float Pvalue[COARSE_FACTOR];
    for (int c = 0; c < COARSE_FACTOR; ++c) {
        Pvalue[c] = 0.0f;
    }

    // Loop over the M and N tiles required to compute P element
    for (int ph = 0; ph < (width + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        // Collaborative loading of M tile into shared memory
        if (row < width && ph * TILE_WIDTH + tx < width)
            Mds[ty][tx] = M[row * width + ph * TILE_WIDTH + tx];
        else
            Mds[ty][tx] = 0.0f;

        for (int c = 0; c < COARSE_FACTOR; ++c) {
            int col = colStart + c * TILE_WIDTH;

            // Collaborative loading of N tile into shared memory
            if (ph * TILE_WIDTH + ty < width && col < width)
                Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * width + col];
            else
                Nds[ty][tx] = 0.0f;
            __syncthreads();

            for (int k = 0; k < TILE_WIDTH; ++k) {
                Pvalue[c] += Mds[ty][k] * Nds[k][tx];
            }
            __syncthreads();
        }
    }

    for (int c = 0; c < COARSE_FACTOR; ++c) {
        int col = colStart + c * TILE_WIDTH;
        if (row < width && col < width)
            P[row * width + col] = Pvalue[c];
    }
}
