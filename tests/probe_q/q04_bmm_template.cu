// style: GitHub "cuda-bmm" repo naive batched matmul; template <typename T> kernel, batch taken from blockIdx.z with per-batch base pointers, unsigned loop counter, explicit bmm_naive<float><<<...>>> launch in main() with cudaMalloc/cudaMemcpy
// launch: grid cdiv(N, 16), cdiv(M, 16), batch block 16, 16
// sizes: batch=3 M=37 N=53 K=29
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

template <typename T>
__global__ void bmm_naive(const T* A, const T* B, T* C, int batch, int M, int N, int K)
{
    const int b = blockIdx.z;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch || row >= M || col >= N) return;

    const T* Ab = A + (size_t)b * M * K;
    const T* Bb = B + (size_t)b * K * N;
    T* Cb = C + (size_t)b * M * N;

    T acc = T(0);
    for (unsigned k = 0; k < (unsigned)K; ++k) {
        acc += Ab[row * K + k] * Bb[k * N + col];
    }
    Cb[row * N + col] = acc;
}

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

int main(void)
{
    const int batch = 3, M = 37, N = 53, K = 29;
    size_t szA = (size_t)batch * M * K, szB = (size_t)batch * K * N, szC = (size_t)batch * M * N;
    float *hA = (float*)malloc(szA * sizeof(float));
    float *hB = (float*)malloc(szB * sizeof(float));
    float *hC = (float*)malloc(szC * sizeof(float));
    for (size_t i = 0; i < szA; i++) hA[i] = (float)(i % 3);
    for (size_t i = 0; i < szB; i++) hB[i] = (float)(i % 4) * 0.5f;

    float *dA, *dB, *dC;
    CHECK(cudaMalloc((void**)&dA, szA * sizeof(float)));
    CHECK(cudaMalloc((void**)&dB, szB * sizeof(float)));
    CHECK(cudaMalloc((void**)&dC, szC * sizeof(float)));
    CHECK(cudaMemcpy(dA, hA, szA * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, hB, szB * sizeof(float), cudaMemcpyHostToDevice));

    dim3 threads(16, 16);
    dim3 blocks((N + 15) / 16, (M + 15) / 16, batch);
    bmm_naive<float><<<blocks, threads>>>(dA, dB, dC, batch, M, N, K);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hC, dC, szC * sizeof(float), cudaMemcpyDeviceToHost));
    printf("C[0][0][0] = %f\n", hC[0]);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(hA); free(hB); free(hC);
    return 0;
}
