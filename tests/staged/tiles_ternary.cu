// rectangular, ternary fills, __ldg loads, fmaf, tile loop stepping by the tile
#define TS 8
__global__ void gemm_tiled(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                           int M, int N, int K) {
    __shared__ float sA[TS][TS];
    __shared__ float sB[TS][TS];
    int row = blockIdx.y * TS + threadIdx.y;
    int col = blockIdx.x * TS + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < K; t += TS) {
        sA[threadIdx.y][threadIdx.x] = (row < M && t + threadIdx.x < K) ? __ldg(&A[row * K + t + threadIdx.x]) : 0.0f;
        sB[threadIdx.y][threadIdx.x] = (col < N && t + threadIdx.y < K) ? __ldg(&B[(t + threadIdx.y) * N + col]) : 0.0f;
        __syncthreads();
        #pragma unroll
        for (int i = 0; i < TS; i++) acc = fmaf(sA[threadIdx.y][i], sB[i][threadIdx.x], acc);
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}
