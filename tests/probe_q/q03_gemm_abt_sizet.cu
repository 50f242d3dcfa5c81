// style: PyTorch-extension "x @ w.T" naive kernel; size_t indices built with static_cast, B stored n-major (C = A * B^T, both operands read along k), negated early return if (!(r < M && c < N)) return;, host wrapper with cudaMalloc/cudaMemcpy
// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M=75 N=53 K=91
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

// out[M x N] = a[M x K] * b[N x K]^T
__global__ void gemm_abt(const float* a, const float* b, float* out, int M, int N, int K)
{
    const size_t c = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const size_t r = static_cast<size_t>(blockIdx.y) * blockDim.y + threadIdx.y;
    if (!(r < static_cast<size_t>(M) && c < static_cast<size_t>(N))) return;

    const size_t kk = static_cast<size_t>(K);
    float dot = 0.0f;
    for (size_t t = 0; t < kk; ++t) {
        dot += a[r * kk + t] * b[c * kk + t];
    }
    out[r * static_cast<size_t>(N) + c] = dot;
}

int main()
{
    const int M = 75, N = 53, K = 91;
    std::vector<float> ha(static_cast<size_t>(M) * K), hb(static_cast<size_t>(N) * K), hc(static_cast<size_t>(M) * N);
    for (size_t i = 0; i < ha.size(); ++i) ha[i] = static_cast<float>(i % 7) * 0.25f;
    for (size_t i = 0; i < hb.size(); ++i) hb[i] = static_cast<float>(i % 5) - 2.0f;

    float *da, *db, *dc;
    cudaMalloc(&da, ha.size() * sizeof(float));
    cudaMalloc(&db, hb.size() * sizeof(float));
    cudaMalloc(&dc, hc.size() * sizeof(float));
    cudaMemcpy(da, ha.data(), ha.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(db, hb.data(), hb.size() * sizeof(float), cudaMemcpyHostToDevice);

    dim3 block(32, 8);
    dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
    gemm_abt<<<grid, block>>>(da, db, dc, M, N, K);
    cudaMemcpy(hc.data(), dc, hc.size() * sizeof(float), cudaMemcpyDeviceToHost);

    printf("out[0]=%f out[last]=%f\n", hc[0], hc.back());
    cudaFree(da); cudaFree(db); cudaFree(dc);
    return 0;
}
