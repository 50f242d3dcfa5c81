// launch: grid N / 64, M / 64 block 512
// sizes: M=1024 N=1024 K=1024
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
// the occupancy is low by design: no register cap may be offered
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM * BN) / (TM * TN))
sgemm_register_tiled(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,  // expect: low-occupancy
                     float* __restrict__ C) {
    __shared__ float As[BK][BM];
    __shared__ float Bs[BK][BN];
    const uint threads = (BM * BN) / (TM * TN);
    const uint tx = threadIdx.x % (BN / TN);
    const uint ty = threadIdx.x / (BN / TN);
    const float* a = A + blockIdx.y * BM * K;
    const float* b = B + blockIdx.x * BN;
    float* c = C + blockIdx.y * BM * N + blockIdx.x * BN;
    float acc[TM][TN] = {0.0f};
    float ra[TM], rb[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (uint i = threadIdx.x; i < BM * BK; i += threads) {
            uint r = i / BK, q = i % BK;
            As[q][r] = a[r * K + q];
        }
        for (uint i = threadIdx.x; i < BK * BN; i += threads) {
            uint r = i / BN, q = i % BN;
            Bs[r][q] = b[r * N + q];
        }
        __syncthreads();
        a += BK;
        b += BK * N;
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
#pragma unroll
            for (int m = 0; m < TM; ++m) ra[m] = As[kk][ty * TM + m];
#pragma unroll
            for (int n = 0; n < TN; ++n) rb[n] = Bs[kk][tx * TN + n];
#pragma unroll
            for (int m = 0; m < TM; ++m)
#pragma unroll
                for (int n = 0; n < TN; ++n) acc[m][n] += ra[m] * rb[n];
        }
        __syncthreads();
    }
#pragma unroll
    for (int m = 0; m < TM; ++m)
#pragma unroll
        for (int n = 0; n < TN; ++n) c[(ty * TM + m) * N + tx * TN + n] = acc[m][n];
}

void launch_sgemm(int M, int N, int K, const float* A, const float* B, float* C) {
    dim3 grid(N / 128, M / 128);
    sgemm_register_tiled<128, 128, 8, 8, 8><<<grid, 256>>>(M, N, K, A, B, C);
}
