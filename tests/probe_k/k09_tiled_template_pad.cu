// style: textbook (Kirk & Hwu ch. 5) tiled matmul turned into template<int TILE>, shared tiles padded As[TILE][TILE + 1], bounds-checked loads for arbitrary M, N, K, host main
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=129 N=67 K=45
// template: 16
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

template <int TILE>
__global__ void tiled_matmul(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE + 1];
    __shared__ float Bs[TILE][TILE + 1];

    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;

    float Pvalue = 0.0f;
    int numTiles = (K + TILE - 1) / TILE;
    for (int ph = 0; ph < numTiles; ++ph) {
        int aCol = ph * TILE + tx;
        int bRow = ph * TILE + ty;
        As[ty][tx] = (row < M && aCol < K) ? A[row * K + aCol] : 0.0f;
        Bs[ty][tx] = (bRow < K && col < N) ? B[bRow * N + col] : 0.0f;
        __syncthreads();

        #pragma unroll
        for (int kk = 0; kk < TILE; ++kk)
            Pvalue += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }

    if (row < M && col < N)
        C[row * N + col] = Pvalue;
}

int main()
{
    const int M = 129, N = 67, K = 45;
    constexpr int TILE = 16;
    std::vector<float> hA(M * K), hB(K * N), hC(M * N);
    for (int i = 0; i < M * K; ++i) hA[i] = 0.01f * (i % 97);
    for (int i = 0; i < K * N; ++i) hB[i] = 0.02f * (i % 53) - 0.5f;

    float *dA, *dB, *dC;
    cudaMalloc(&dA, hA.size() * sizeof(float));
    cudaMalloc(&dB, hB.size() * sizeof(float));
    cudaMalloc(&dC, hC.size() * sizeof(float));
    cudaMemcpy(dA, hA.data(), hA.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB.data(), hB.size() * sizeof(float), cudaMemcpyHostToDevice);

    dim3 dimBlock(TILE, TILE);
    dim3 dimGrid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    tiled_matmul<TILE><<<dimGrid, dimBlock>>>(dA, dB, dC, M, N, K);
    cudaMemcpy(hC.data(), dC, hC.size() * sizeof(float), cudaMemcpyDeviceToHost);

    int bad = 0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float s = 0.0f;
            for (int k = 0; k < K; ++k) s += hA[i * K + k] * hB[k * N + j];
            if (fabsf(s - hC[i * N + j]) > 1e-3f * (1.0f + fabsf(s))) ++bad;
        }
    printf("%s (%d mismatches)\n", bad ? "FAILED" : "PASSED", bad);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    return 0;
}
