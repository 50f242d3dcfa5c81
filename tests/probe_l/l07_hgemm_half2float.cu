// style: cuda_fp16 getting-started GEMM, `half` operands and `half` output, every load widened with __half2float and summed in a float register, result stored with __float2half_rn, long long row offsets, early-return guard, host converts with __float2half
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=67 N=129 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cuda_fp16.h>

// C = A * B, A: M x K, B: K x N, C: M x N, row-major half, fp32 accumulation
__global__ void hgemm_f32acc(const half *A, const half *B, half *C, int M, int N, int K)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= M || c >= N)
        return;

    long long aoff = (long long)r * K;
    float sum = 0.0f;
    for (int k = 0; k < K; k++) {
        float a = __half2float(A[aoff + k]);
        float b = __half2float(B[(long long)k * N + c]);
        sum += a * b;
    }
    C[(long long)r * N + c] = __float2half_rn(sum);
}

int main()
{
    const int M = 67, N = 129, K = 45;
    half *hA = (half *)malloc(sizeof(half) * M * K);
    half *hB = (half *)malloc(sizeof(half) * K * N);
    half *hC = (half *)malloc(sizeof(half) * M * N);
    for (int i = 0; i < M * K; i++) hA[i] = __float2half((float)(i % 8) * 0.125f);
    for (int i = 0; i < K * N; i++) hB[i] = __float2half((float)(i % 5) * 0.25f - 0.5f);

    half *dA, *dB, *dC;
    cudaMalloc(&dA, sizeof(half) * M * K);
    cudaMalloc(&dB, sizeof(half) * K * N);
    cudaMalloc(&dC, sizeof(half) * M * N);
    cudaMemcpy(dA, hA, sizeof(half) * M * K, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, sizeof(half) * K * N, cudaMemcpyHostToDevice);

    dim3 threads(16, 16);
    dim3 grid((N + 15) / 16, (M + 15) / 16);
    hgemm_f32acc<<<grid, threads>>>(dA, dB, dC, M, N, K);
    cudaMemcpy(hC, dC, sizeof(half) * M * N, cudaMemcpyDeviceToHost);

    float ref = 0.0f;
    for (int k = 0; k < K; k++)
        ref += __half2float(hA[k]) * __half2float(hB[k * N]);
    printf("C[0][0] = %f (ref %f)\n", __half2float(hC[0]), ref);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(hA); free(hB); free(hC);
    return 0;
}
