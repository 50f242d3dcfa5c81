// style: homework batched matmul where one 2-D launch serves every batch: the batch index is an outer for-loop inside the kernel
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: batch=3 M=187 N=141 K=223
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

// A: (batch, M, K), B: (batch, K, N), C: (batch, M, N), contiguous row-major
__global__ void bmm_batch_loop(const float *A, const float *B, float *C,
                               int batch, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;

    for (int b = 0; b < batch; ++b) {
        const float *Ab = A + (size_t)b * M * K;
        const float *Bb = B + (size_t)b * K * N;
        float acc = 0.f;
        for (int k = 0; k < K; ++k)
            acc += Ab[row * K + k] * Bb[k * N + col];
        C[(size_t)b * M * N + row * N + col] = acc;
    }
}

int main()
{
    const int batch = 3, M = 187, N = 141, K = 223;
    std::vector<float> hA((size_t)batch * M * K), hB((size_t)batch * K * N), hC((size_t)batch * M * N);
    for (size_t i = 0; i < hA.size(); ++i) hA[i] = (float)((i * 7) % 13) / 13.0f;
    for (size_t i = 0; i < hB.size(); ++i) hB[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;

    float *dA, *dB, *dC;
    cudaMalloc(&dA, hA.size() * sizeof(float));
    cudaMalloc(&dB, hB.size() * sizeof(float));
    cudaMalloc(&dC, hC.size() * sizeof(float));
    cudaMemcpy(dA, hA.data(), hA.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB.data(), hB.size() * sizeof(float), cudaMemcpyHostToDevice);

    dim3 threads(16, 16);
    dim3 blocks((N + 15) / 16, (M + 15) / 16);
    bmm_batch_loop<<<blocks, threads>>>(dA, dB, dC, batch, M, N, K);
    cudaMemcpy(hC.data(), dC, hC.size() * sizeof(float), cudaMemcpyDeviceToHost);

    float ref = 0.f;
    const int b = 2, i = 100, j = 77;
    for (int k = 0; k < K; ++k)
        ref += hA[(size_t)b * M * K + i * K + k] * hB[(size_t)b * K * N + k * N + j];
    printf("C[2][100][77] = %f ref %f\n", hC[(size_t)b * M * N + i * N + j], ref);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    return 0;
}
