// style: forum-post ("why is my matmul slow?") kernel where threadIdx.x/blockIdx.x run over ROWS of C and threadIdx.y over columns, so consecutive threads in a warp hit A and C with a stride of K and N (uncoalesced); float Pvalue accumulator, host main with error checks
// launch: grid cdiv(M, 16), cdiv(N, 16) block 16, 16
// sizes: M=67 N=93 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <iostream>
#include <vector>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define gpuErrchk(ans) { gpuAssert((ans), __FILE__, __LINE__); }
inline void gpuAssert(cudaError_t code, const char *file, int line)
{
    if (code != cudaSuccess) {
        std::cerr << "GPUassert: " << cudaGetErrorString(code) << " " << file << " " << line << std::endl;
        exit(code);
    }
}

__global__ void matMul(const float *A, const float *B, float *C, int M, int N, int K)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y * blockDim.y + threadIdx.y;

    if (row < M && col < N) {
        float Pvalue = 0;
        for (int k = 0; k < K; ++k) {
            Pvalue += A[row * K + k] * B[k * N + col];
        }
        C[row * N + col] = Pvalue;
    }
}

int main()
{
    const int M = 67, N = 93, K = 45;
    std::vector<float> A(M * K), B(K * N), C(M * N);
    for (auto &x : A) x = static_cast<float>(rand()) / RAND_MAX;
    for (auto &x : B) x = static_cast<float>(rand()) / RAND_MAX;

    float *dA, *dB, *dC;
    gpuErrchk(cudaMalloc(&dA, A.size() * sizeof(float)));
    gpuErrchk(cudaMalloc(&dB, B.size() * sizeof(float)));
    gpuErrchk(cudaMalloc(&dC, C.size() * sizeof(float)));
    gpuErrchk(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
    gpuErrchk(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));

    dim3 threads(16, 16);
    dim3 blocks((M + threads.x - 1) / threads.x, (N + threads.y - 1) / threads.y);
    matMul<<<blocks, threads>>>(dA, dB, dC, M, N, K);
    gpuErrchk(cudaPeekAtLastError());
    gpuErrchk(cudaDeviceSynchronize());
    gpuErrchk(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));

    float maxdiff = 0.f;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float s = 0.f;
            for (int k = 0; k < K; ++k) s += A[i * K + k] * B[k * N + j];
            maxdiff = std::fmax(maxdiff, std::fabs(s - C[i * N + j]));
        }
    std::cout << "max diff: " << maxdiff << std::endl;

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    return 0;
}
