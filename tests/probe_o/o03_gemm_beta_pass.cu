// style: cuBLAS-imitation student sgemm; beta applied by a separate scale pass, product kernel walks row pointers (camelCase, size_t row offset)
// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M=67 N=129 K=45 alpha=1.5
// kernel: sgemmAccumulate
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

__global__ void scaleByBeta(float *C, float beta, int total)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < total) C[t] = (beta == 0.0f) ? 0.0f : beta * C[t];
}

__global__ void sgemmAccumulate(const float *A, const float *B, float *C,
                                int M, int N, int K, float alpha)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        const float *aRow = A + (size_t)row * K;
        float *cRow = C + (size_t)row * N;
        float acc = 0.0f;
        for (int p = 0; p < K; p++)
            acc += aRow[p] * B[p * N + col];
        cRow[col] += alpha * acc;
    }
}

// host entry: C = alpha*A*B + beta*C, all matrices already on host
void sgemmHost(const float *hA, const float *hB, float *hC,
               int M, int N, int K, float alpha, float beta)
{
    float *dA, *dB, *dC;
    cudaMalloc(&dA, sizeof(float) * M * K);
    cudaMalloc(&dB, sizeof(float) * K * N);
    cudaMalloc(&dC, sizeof(float) * M * N);
    cudaMemcpy(dA, hA, sizeof(float) * M * K, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, sizeof(float) * K * N, cudaMemcpyHostToDevice);
    cudaMemcpy(dC, hC, sizeof(float) * M * N, cudaMemcpyHostToDevice);

    scaleByBeta<<<(M * N + 255) / 256, 256>>>(dC, beta, M * N);
    dim3 threads(32, 8);
    dim3 blocks((N + 31) / 32, (M + 7) / 8);
    sgemmAccumulate<<<blocks, threads>>>(dA, dB, dC, M, N, K, alpha);

    cudaMemcpy(hC, dC, sizeof(float) * M * N, cudaMemcpyDeviceToHost);
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
}
