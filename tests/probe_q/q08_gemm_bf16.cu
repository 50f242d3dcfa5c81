// style: mixed-precision tutorial "bf16 in, fp32 out" naive GEMM; #include <cuda_bf16.h>, __nv_bfloat16 operands converted with __bfloat162float, fp32 accumulator and fp32 output, host side converts with __float2bfloat16 and uses cudaMalloc/cudaMemcpy
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=67 N=97 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include <cuda_bf16.h>

__global__ void gemm_bf16_f32acc(const __nv_bfloat16* __restrict__ A,
                                 const __nv_bfloat16* __restrict__ B,
                                 float* __restrict__ C,
                                 int M, int N, int K)
{
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= M || c >= N) return;

    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {
        float a = __bfloat162float(A[r * K + k]);
        float b = __bfloat162float(B[k * N + c]);
        acc = fmaf(a, b, acc);
    }
    C[r * N + c] = acc;
}

int main()
{
    const int M = 67, N = 97, K = 45;
    std::vector<__nv_bfloat16> hA(M * K), hB(K * N);
    std::vector<float> hC(M * N);
    for (int i = 0; i < M * K; ++i) hA[i] = __float2bfloat16(0.125f * (i % 9));
    for (int i = 0; i < K * N; ++i) hB[i] = __float2bfloat16(0.5f * (i % 5) - 1.0f);

    __nv_bfloat16 *dA, *dB;
    float *dC;
    cudaMalloc(&dA, M * K * sizeof(__nv_bfloat16));
    cudaMalloc(&dB, K * N * sizeof(__nv_bfloat16));
    cudaMalloc(&dC, M * N * sizeof(float));
    cudaMemcpy(dA, hA.data(), M * K * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB.data(), K * N * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice);

    dim3 block(16, 16);
    dim3 grid((N + 15) / 16, (M + 15) / 16);
    gemm_bf16_f32acc<<<grid, block>>>(dA, dB, dC, M, N, K);
    cudaMemcpy(hC.data(), dC, M * N * sizeof(float), cudaMemcpyDeviceToHost);
    printf("C[0]=%f\n", hC[0]);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    return 0;
}
