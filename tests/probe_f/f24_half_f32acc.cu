// style: naive HGEMM with half operands, __half2float products accumulated in float, __float2half store; launcher function
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=143 N=199 K=117
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void hgemm_naive_f32acc(const __half *A, const __half *B, __half *C,
                                   int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) {
            float a = __half2float(A[row * K + k]);
            float b = __half2float(B[k * N + col]);
            sum += a * b;
        }
        C[row * N + col] = __float2half(sum);
    }
}

void launch_hgemm_naive(const __half *dA, const __half *dB, __half *dC,
                        int M, int N, int K, cudaStream_t stream)
{
    dim3 block(16, 16);
    dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
    hgemm_naive_f32acc<<<grid, block, 0, stream>>>(dA, dB, dC, M, N, K);
}

void hgemm_host(const __half *hA, const __half *hB, __half *hC, int M, int N, int K)
{
    __half *dA, *dB, *dC;
    cudaMalloc(&dA, sizeof(__half) * M * K);
    cudaMalloc(&dB, sizeof(__half) * K * N);
    cudaMalloc(&dC, sizeof(__half) * M * N);
    cudaMemcpy(dA, hA, sizeof(__half) * M * K, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, sizeof(__half) * K * N, cudaMemcpyHostToDevice);
    launch_hgemm_naive(dA, dB, dC, M, N, K, 0);
    cudaMemcpy(hC, dC, sizeof(__half) * M * N, cudaMemcpyDeviceToHost);
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
}
