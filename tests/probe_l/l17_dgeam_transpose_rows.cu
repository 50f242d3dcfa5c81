// style: hand-rolled cublasDgeam(OP_T) replacement C = alpha * A^T in double, constexpr TILE_DIM = 32 / BLOCK_ROWS = 8, each thread covers TILE_DIM/BLOCK_ROWS rows with a #pragma unroll loop (no shared memory), column guard as early return, size_t output index, host main
// launch: grid cdiv(cols, 32), cdiv(rows, 32) block 32, 8
// sizes: rows=67 cols=129 alpha=2.5
// expect: transpose-tile|gather
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

constexpr int TILE_DIM = 32;
constexpr int BLOCK_ROWS = 8;

// A is rows x cols (row-major), C is cols x rows (row-major)
__global__ void dgeam_t(int rows, int cols, double alpha, const double *A, double *C)
{
    const int x = blockIdx.x * TILE_DIM + threadIdx.x;       // column of A
    const int y0 = blockIdx.y * TILE_DIM + threadIdx.y;      // first row of A for this thread
    if (x >= cols) return;

#pragma unroll
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        const int y = y0 + j;
        if (y < rows)
            C[(size_t)x * rows + y] = alpha * A[(size_t)y * cols + x];
    }
}

int main()
{
    const int rows = 67, cols = 129;
    const double alpha = 2.5;
    const size_t n = (size_t)rows * cols;

    double *hA = (double *)malloc(n * sizeof(double));
    double *hC = (double *)malloc(n * sizeof(double));
    for (size_t i = 0; i < n; ++i) hA[i] = 0.001 * (double)i;

    double *dA, *dC;
    cudaMalloc(&dA, n * sizeof(double));
    cudaMalloc(&dC, n * sizeof(double));
    cudaMemcpy(dA, hA, n * sizeof(double), cudaMemcpyHostToDevice);

    dim3 dimGrid((cols + TILE_DIM - 1) / TILE_DIM, (rows + TILE_DIM - 1) / TILE_DIM);
    dim3 dimBlock(TILE_DIM, BLOCK_ROWS);
    dgeam_t<<<dimGrid, dimBlock>>>(rows, cols, alpha, dA, dC);
    cudaMemcpy(hC, dC, n * sizeof(double), cudaMemcpyDeviceToHost);

    bool ok = true;
    for (int r = 0; r < rows && ok; ++r)
        for (int c = 0; c < cols; ++c)
            if (hC[(size_t)c * rows + r] != alpha * hA[(size_t)r * cols + c]) { ok = false; break; }
    printf("transpose %s\n", ok ? "correct" : "WRONG");

    cudaFree(dA); cudaFree(dC);
    free(hA); free(hC);
    return 0;
}
