// style: tutorial batched matmul, batch on blockIdx.z, per-batch base pointers, with host main
// launch: grid cdiv(N, 16), cdiv(M, 16), batch block 16, 16
// sizes: batch=5 M=123 N=157 K=91
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); exit(1);} } while (0)

// C[b] = A[b] (M x K) * B[b] (K x N), all row-major, contiguous batches
__global__ void batched_matmul(const float* A, const float* B, float* C,
                               int batch, int M, int N, int K)
{
    int b   = blockIdx.z;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < batch && row < M && col < N) {
        const float* a = A + (size_t)b * M * K;
        const float* bm = B + (size_t)b * K * N;
        float sum = 0.0f;
        for (int k = 0; k < K; ++k)
            sum += a[row * K + k] * bm[k * N + col];
        C[(size_t)b * M * N + row * N + col] = sum;
    }
}

int main()
{
    const int batch = 5, M = 123, N = 157, K = 91;
    std::vector<float> hA((size_t)batch * M * K, 1.0f), hB((size_t)batch * K * N, 2.0f), hC((size_t)batch * M * N);
    float *dA, *dB, *dC;
    CUDA_CHECK(cudaMalloc(&dA, hA.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dB, hB.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dC, hC.size() * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(dA, hA.data(), hA.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dB, hB.data(), hB.size() * sizeof(float), cudaMemcpyHostToDevice));
    dim3 block(16, 16);
    dim3 grid((N + 15) / 16, (M + 15) / 16, batch);
    batched_matmul<<<grid, block>>>(dA, dB, dC, batch, M, N, K);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(hC.data(), dC, hC.size() * sizeof(float), cudaMemcpyDeviceToHost));
    printf("C[0] = %f (expect %f)\n", hC[0], 2.0f * K);
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    return 0;
}
