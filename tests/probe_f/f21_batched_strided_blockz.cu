// style: strided batched GEMM (cublasSgemmStridedBatched-like signature), batch index from blockIdx.z
// launch: grid cdiv(N, 16), cdiv(M, 16), batchCount block 16, 16
// sizes: M=97 N=113 K=129 strideA=12513 strideB=14577 strideC=10961 batchCount=3 alpha=1.0 beta=0.0
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); return 1; } } while (0)

__global__ void gemm_strided_batched(int M, int N, int K, float alpha,
                                     const float *A, long long strideA,
                                     const float *B, long long strideB,
                                     float beta, float *C, long long strideC,
                                     int batchCount)
{
    int batch = blockIdx.z;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (batch >= batchCount || row >= M || col >= N) return;

    const float *a = A + batch * strideA;
    const float *b = B + batch * strideB;
    float *c = C + batch * strideC;

    float sum = 0.0f;
    for (int k = 0; k < K; ++k)
        sum += a[row * K + k] * b[k * N + col];
    c[row * N + col] = alpha * sum + beta * c[row * N + col];
}

int main()
{
    const int M = 97, N = 113, K = 129, batchCount = 3;
    const long long strideA = (long long)M * K, strideB = (long long)K * N, strideC = (long long)M * N;
    std::vector<float> hA(strideA * batchCount, 1.0f), hB(strideB * batchCount, 2.0f), hC(strideC * batchCount, 0.0f);

    float *dA, *dB, *dC;
    CUDA_CHECK(cudaMalloc(&dA, hA.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dB, hB.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dC, hC.size() * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(dA, hA.data(), hA.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dB, hB.data(), hB.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dC, hC.data(), hC.size() * sizeof(float), cudaMemcpyHostToDevice));

    dim3 block(16, 16);
    dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y, batchCount);
    gemm_strided_batched<<<grid, block>>>(M, N, K, 1.0f, dA, strideA, dB, strideB, 0.0f, dC, strideC, batchCount);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(hC.data(), dC, hC.size() * sizeof(float), cudaMemcpyDeviceToHost));
    printf("C[0] = %f (expect %f)\n", hC[0], 2.0f * K);
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    return 0;
}
