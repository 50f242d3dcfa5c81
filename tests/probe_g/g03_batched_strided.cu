// style: hand-rolled cublasSgemmStridedBatched replacement; batch index from blockIdx.z, per-matrix strides, row-major
// launch: grid cdiv(N, 16), cdiv(M, 16), batch block 16, 16
// sizes: M=67 N=91 K=45 strideA=3015 strideB=4095 strideC=6097 batch=7
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); return 1; } } while (0)

__global__ void batched_matmul(const float* A, const float* B, float* C,
                               int M, int N, int K,
                               int strideA, int strideB, int strideC, int batch)
{
    int b = blockIdx.z;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch) return;

    const float* a = A + (size_t)b * strideA;
    const float* bm = B + (size_t)b * strideB;
    float* c = C + (size_t)b * strideC;

    if (row < M && col < N) {
        float acc = 0.f;
        for (int k = 0; k < K; ++k)
            acc += a[row * K + k] * bm[k * N + col];
        c[row * N + col] = acc;
    }
}

int main()
{
    const int M = 67, N = 91, K = 45, batch = 7;
    const int strideA = M * K, strideB = K * N, strideC = M * N;
    std::vector<float> hA((size_t)strideA * batch), hB((size_t)strideB * batch), hC((size_t)strideC * batch);
    for (size_t i = 0; i < hA.size(); ++i) hA[i] = (float)((i * 7) % 13) * 0.1f;
    for (size_t i = 0; i < hB.size(); ++i) hB[i] = (float)((i * 3) % 11) * 0.1f;

    float *dA, *dB, *dC;
    CHECK(cudaMalloc(&dA, hA.size() * sizeof(float)));
    CHECK(cudaMalloc(&dB, hB.size() * sizeof(float)));
    CHECK(cudaMalloc(&dC, hC.size() * sizeof(float)));
    CHECK(cudaMemcpy(dA, hA.data(), hA.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, hB.data(), hB.size() * sizeof(float), cudaMemcpyHostToDevice));

    dim3 block(16, 16);
    dim3 grid((N + 15) / 16, (M + 15) / 16, batch);
    batched_matmul<<<grid, block>>>(dA, dB, dC, M, N, K, strideA, strideB, strideC, batch);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hC.data(), dC, hC.size() * sizeof(float), cudaMemcpyDeviceToHost));
    printf("C[last] = %f\n", hC.back());
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    return 0;
}
