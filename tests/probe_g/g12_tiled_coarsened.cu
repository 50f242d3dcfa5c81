// style: PMPP ch.6 thread coarsening on a 32x32 shared-memory tiled GEMM: each thread keeps COARSE_FACTOR accumulators in a register array for COARSE_FACTOR output columns
// launch: grid cdiv(N, 128), cdiv(M, 32) block 32, 32
// sizes: M=187 N=141 K=223
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#define TILE_WIDTH 32
#define COARSE_FACTOR 4

__global__ void matmul_tiled_coarse(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int M, int N, int K)
{
    __shared__ float As[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Bs[TILE_WIDTH][TILE_WIDTH];

    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE_WIDTH + ty;
    int colStart = blockIdx.x * TILE_WIDTH * COARSE_FACTOR + tx;

    float acc[COARSE_FACTOR];
#pragma unroll
    for (int c = 0; c < COARSE_FACTOR; ++c) acc[c] = 0.0f;

    for (int t = 0; t < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++t) {
        int ka = t * TILE_WIDTH + tx;
        As[ty][tx] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;

#pragma unroll
        for (int c = 0; c < COARSE_FACTOR; ++c) {
            int col = colStart + c * TILE_WIDTH;
            int kb = t * TILE_WIDTH + ty;
            Bs[ty][tx] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
            __syncthreads();

            for (int k = 0; k < TILE_WIDTH; ++k)
                acc[c] += As[ty][k] * Bs[k][tx];
            __syncthreads();
        }
    }

#pragma unroll
    for (int c = 0; c < COARSE_FACTOR; ++c) {
        int col = colStart + c * TILE_WIDTH;
        if (row < M && col < N)
            C[row * N + col] = acc[c];
    }
}
