// launch: grid cdiv(N, 16), cdiv(M, 16), batch block 16, 16
// sizes: M=48 N=40 K=36 batch=70
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// Batched small GEMMs C[b] = A[b] * B[b] with blockIdx.z as the batch index (hand-rolled cublasSgemmStridedBatched replacement)
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

struct GemmDims {
    int M, N, K;
    int batch;
};

__global__ void batched_matmul(const float* A, const float* B, float* C,
                               int M, int N, int K, int batch)
{
    int b   = blockIdx.z;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch || row >= M || col >= N) return;

    const float* Ab = A + (size_t)b * M * K;
    const float* Bb = B + (size_t)b * K * N;
    float*       Cb = C + (size_t)b * M * N;

    float sum = 0.0f;
    for (int k = 0; k < K; ++k)
        sum += Ab[row * K + k] * Bb[k * N + col];
    Cb[row * N + col] = sum;
}

int main()
{
    GemmDims d = {48, 40, 36, 70};
    size_t szA = (size_t)d.batch * d.M * d.K;
    size_t szB = (size_t)d.batch * d.K * d.N;
    size_t szC = (size_t)d.batch * d.M * d.N;

    float *hA = (float*)malloc(szA * sizeof(float));
    float *hB = (float*)malloc(szB * sizeof(float));
    float *hC = (float*)malloc(szC * sizeof(float));
    for (size_t i = 0; i < szA; ++i) hA[i] = rand() / (float)RAND_MAX;
    for (size_t i = 0; i < szB; ++i) hB[i] = rand() / (float)RAND_MAX;

    float *dA, *dB, *dC;
    cudaMalloc((void**)&dA, szA * sizeof(float));
    cudaMalloc((void**)&dB, szB * sizeof(float));
    cudaMalloc((void**)&dC, szC * sizeof(float));
    cudaMemcpy(dA, hA, szA * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, szB * sizeof(float), cudaMemcpyHostToDevice);

    dim3 threads(16, 16);
    dim3 blocks((d.N + 15) / 16, (d.M + 15) / 16, d.batch);
    batched_matmul<<<blocks, threads>>>(dA, dB, dC, d.M, d.N, d.K, d.batch);
    cudaMemcpy(hC, dC, szC * sizeof(float), cudaMemcpyDeviceToHost);

    double checksum = 0;
    for (size_t i = 0; i < szC; ++i) checksum += hC[i];
    printf("checksum %f\n", checksum);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(hA); free(hB); free(hC);
    return 0;
}
