// style: scientific-computing "dgemm on the GPU" tutorial; double operands with double accumulator via fma(), long long flat offsets, host main with cudaMalloc/cudaMemcpy and a CPU check of one entry
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=75 N=53 K=99
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <vector>
#include <cmath>
#include <cuda_runtime.h>

__global__ void dgemm_naive(const double *A, const double *B, double *C, int M, int N, int K)
{
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= M || c >= N) return;
    double acc = 0.0;
    for (int k = 0; k < K; ++k) {
        long long ia = (long long)r * K + k;
        long long ib = (long long)k * N + c;
        acc = fma(A[ia], B[ib], acc);
    }
    C[(long long)r * N + c] = acc;
}

int main()
{
    const int M = 75, N = 53, K = 99;
    std::vector<double> A(M * K), B(K * N), C(M * N);
    for (int i = 0; i < M * K; ++i) A[i] = std::sin(0.01 * i);
    for (int i = 0; i < K * N; ++i) B[i] = std::cos(0.02 * i);

    double *dA, *dB, *dC;
    cudaMalloc(&dA, A.size() * sizeof(double));
    cudaMalloc(&dB, B.size() * sizeof(double));
    cudaMalloc(&dC, C.size() * sizeof(double));
    cudaMemcpy(dA, A.data(), A.size() * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B.data(), B.size() * sizeof(double), cudaMemcpyHostToDevice);

    dim3 block(16, 16);
    dim3 grid((N + 15) / 16, (M + 15) / 16);
    dgemm_naive<<<grid, block>>>(dA, dB, dC, M, N, K);
    cudaMemcpy(C.data(), dC, C.size() * sizeof(double), cudaMemcpyDeviceToHost);

    double ref = 0.0;
    for (int k = 0; k < K; ++k) ref += A[k] * B[k * N];
    printf("C[0][0] gpu=%.12f cpu=%.12f\n", C[0], ref);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    return 0;
}
