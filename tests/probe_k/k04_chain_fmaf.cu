// style: GPU-programming course "matrix chain" lab, D = (A*B)*C as two naive kernels in one file, unsigned indices, fmaf into a local, host launcher function (no main) that runs both
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=67 K=45 N=129 P=37
// kernel: chain_first_product
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cuda_runtime.h>

// T(M x N) = A(M x K) * B(K x N)
__global__ void chain_first_product(const float *A, const float *B, float *T,
                                    unsigned M, unsigned K, unsigned N)
{
    unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < M && c < N) {
        float s = 0.0f;
        for (unsigned k = 0; k < K; ++k)
            s = fmaf(A[r * K + k], B[k * N + c], s);
        T[r * N + c] = s;
    }
}

// D(M x P) = T(M x N) * C(N x P); here each thread walks one row of D with x on rows
__global__ void chain_second_product(const float *T, const float *C, float *D,
                                     unsigned M, unsigned N, unsigned P)
{
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned c = blockIdx.y;
    if (r >= M || c >= P)
        return;
    float s = 0.0f;
    for (unsigned k = 0; k < N; k++)
        s += T[r * N + k] * C[k * P + c];
    D[r * P + c] = s;
}

// host side: hA, hB, hC in, hD out (all row-major)
extern "C" int matrix_chain(const float *hA, const float *hB, const float *hC, float *hD,
                            int M, int K, int N, int P)
{
    float *dA = nullptr, *dB = nullptr, *dC = nullptr, *dT = nullptr, *dD = nullptr;
    cudaMalloc(&dA, sizeof(float) * M * K);
    cudaMalloc(&dB, sizeof(float) * K * N);
    cudaMalloc(&dC, sizeof(float) * N * P);
    cudaMalloc(&dT, sizeof(float) * M * N);
    cudaMalloc(&dD, sizeof(float) * M * P);
    cudaMemcpy(dA, hA, sizeof(float) * M * K, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, sizeof(float) * K * N, cudaMemcpyHostToDevice);
    cudaMemcpy(dC, hC, sizeof(float) * N * P, cudaMemcpyHostToDevice);

    dim3 blk1(16, 16);
    dim3 grd1((N + 15) / 16, (M + 15) / 16);
    chain_first_product<<<grd1, blk1>>>(dA, dB, dT, M, K, N);

    dim3 blk2(64);
    dim3 grd2((M + 63) / 64, P);
    chain_second_product<<<grd2, blk2>>>(dT, dC, dD, M, N, P);

    cudaError_t err = cudaMemcpy(hD, dD, sizeof(float) * M * P, cudaMemcpyDeviceToHost);
    cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dT); cudaFree(dD);
    return err == cudaSuccess ? 0 : 1;
}
