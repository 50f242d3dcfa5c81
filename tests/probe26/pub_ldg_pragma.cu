// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M=300 N=200 K=250
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
// read-only loads through __ldg and an unrolled k loop
__global__ void mm_ldg(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= M || c >= N) return;
    float acc = 0.f;
#pragma unroll 4
    for (int k = 0; k < K; ++k) acc = fmaf(__ldg(&A[r * K + k]), __ldg(&B[k * N + c]), acc);
    C[r * N + c] = acc;
}
