// style: shared-memory tiled SGEMM (TILE 32) that stores the B tile transposed as Bs[tx][ty] (padded +1) so the inner loop reads Bs[tx][k]
// launch: grid cdiv(N, 32), cdiv(M, 32) block 32, 32
// sizes: M=187 N=141 K=223
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library

#define TILE 32

__global__ void sgemm_tiled_bt(const float *A, const float *B, float *C,
                               int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];   // Bs[local col][local k]

    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;

    float acc = 0.0f;
    int numTiles = (K + TILE - 1) / TILE;
    for (int t = 0; t < numTiles; ++t) {
        int ka = t * TILE + tx;
        int kb = t * TILE + ty;
        As[ty][tx] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
        Bs[tx][ty] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
        __syncthreads();

        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[tx][k];
        __syncthreads();
    }

    if (row < M && col < N)
        C[row * N + col] = acc;
}
