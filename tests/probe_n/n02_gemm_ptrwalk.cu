// style: StackOverflow answer GEMM -- unsigned indices, k loop walks two pointers (a += 1; b += N) instead of indexing
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=67 N=129 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void mm_ptr(const float *A, const float *B, float *C,
                       unsigned M, unsigned N, unsigned K)
{
    unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;

    const float *a = A + row * K;   // start of row `row` of A
    const float *b = B + col;       // top of column `col` of B
    float sum = 0.0f;
    for (unsigned k = 0; k < K; ++k) {
        sum += (*a) * (*b);
        a += 1;
        b += N;
    }
    C[row * N + col] = sum;
}

int main()
{
    const unsigned M = 67, N = 129, K = 45;
    size_t sa = M * K * sizeof(float), sb = K * N * sizeof(float), sc = M * N * sizeof(float);
    float *hA = (float *)malloc(sa), *hB = (float *)malloc(sb), *hC = (float *)malloc(sc);
    for (unsigned i = 0; i < M * K; i++) hA[i] = (float)(i % 7) - 3.0f;
    for (unsigned i = 0; i < K * N; i++) hB[i] = (float)(i % 5) * 0.25f;

    float *dA, *dB, *dC;
    cudaMalloc(&dA, sa); cudaMalloc(&dB, sb); cudaMalloc(&dC, sc);
    cudaMemcpy(dA, hA, sa, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, sb, cudaMemcpyHostToDevice);

    dim3 block(16, 16);
    dim3 grid((N + 15) / 16, (M + 15) / 16);
    mm_ptr<<<grid, block>>>(dA, dB, dC, M, N, K);
    cudaMemcpy(hC, dC, sc, cudaMemcpyDeviceToHost);
    printf("C[0]=%f C[last]=%f\n", hC[0], hC[M * N - 1]);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(hA); free(hB); free(hC);
    return 0;
}
