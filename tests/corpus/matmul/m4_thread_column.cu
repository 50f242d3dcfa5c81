// corpus: matmul step 4: each thread computes 8 outputs of a column (1-D register blocking)
// absent: fp64-in-float-kernel, register-spill, local-memory, sync-in-divergent-branch, shared-bank-conflict
#define BM 64
#define BN 64
#define BK 8
#define TM 8

__global__ void sgemm_1d_blocktile(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                                   float* __restrict__ C) {
    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * BN];
    const uint col = threadIdx.x % BN;
    const uint row = threadIdx.x / BN;
    A += blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    C += blockIdx.y * BM * N + blockIdx.x * BN;
    const uint ar = threadIdx.x / BK, ac = threadIdx.x % BK;
    const uint br = threadIdx.x / BN, bc = threadIdx.x % BN;
    float acc[TM] = {0.0f};
    for (uint k0 = 0; k0 < K; k0 += BK) {
        As[ar * BK + ac] = A[ar * K + ac];
        Bs[br * BN + bc] = B[br * N + bc];
        __syncthreads();
        A += BK;
        B += BK * N;
        for (uint d = 0; d < BK; ++d) {
            float b = Bs[d * BN + col];
            for (uint r = 0; r < TM; ++r) acc[r] += As[(row * TM + r) * BK + d] * b;
        }
        __syncthreads();
    }
    for (uint r = 0; r < TM; ++r) C[(row * TM + r) * N + col] = acc[r];
}

void launch_1d(int M, int N, int K, const float* A, const float* B, float* C) {
    sgemm_1d_blocktile<<<dim3(N / BN, M / BM), (BM * BN) / TM>>>(M, N, K, A, B, C);
}
