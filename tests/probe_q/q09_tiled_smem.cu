// style: PMPP ch.5 tiled matrix multiplication (TILE_WIDTH shared tiles) extended with boundary checks for rectangular M x K by K x N; Mds/Nds names, bx/by/tx/ty locals, unsigned phase counter, zero-padded tile loads, two __syncthreads per phase
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=67 N=129 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce

#define TILE_WIDTH 16

__global__ void MatrixMulTiled(const float* Md, const float* Nd, float* Pd, int M, int N, int K)
{
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int bx = blockIdx.x;  int by = blockIdx.y;
    int tx = threadIdx.x; int ty = threadIdx.y;

    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;

    float Pvalue = 0;
    unsigned numPhases = (K + TILE_WIDTH - 1) / TILE_WIDTH;
    for (unsigned ph = 0; ph < numPhases; ++ph) {
        int aCol = ph * TILE_WIDTH + tx;
        int bRow = ph * TILE_WIDTH + ty;
        Mds[ty][tx] = (Row < M && aCol < K) ? Md[Row * K + aCol] : 0.0f;
        Nds[ty][tx] = (bRow < K && Col < N) ? Nd[bRow * N + Col] : 0.0f;
        __syncthreads();

        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if (Row < M && Col < N)
        Pd[Row * N + Col] = Pvalue;
}
