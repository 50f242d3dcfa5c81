// style: NVIDIA-blog grid-stride loop applied to GEMM: fixed-size grid, each thread walks idx over M*N outputs and decodes i = idx / N, j = idx % N
// launch: grid 64 block 256
// sizes: M=187 N=141 K=223
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void matmul_gridstride(const float *A, const float *B, float *C,
                                  int M, int N, int K)
{
    for (int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < M * N;
         idx += gridDim.x * blockDim.x) {
        int i = idx / N, j = idx % N;
        float s = 0.0f;
        for (int k = 0; k < K; ++k)
            s += A[i * K + k] * B[k * N + j];
        C[idx] = s;
    }
}

int main()
{
    int M = 187, N = 141, K = 223;
    float *A, *B, *C;
    cudaMallocManaged(&A, M * K * sizeof(float));
    cudaMallocManaged(&B, K * N * sizeof(float));
    cudaMallocManaged(&C, M * N * sizeof(float));
    for (int i = 0; i < M * K; i++) A[i] = (float)(i % 9) * 0.25f;
    for (int i = 0; i < K * N; i++) B[i] = (float)(i % 4) - 1.5f;

    int blockSize = 256;
    int numBlocks = 64;   // deliberately fewer threads than outputs: the loop strides
    matmul_gridstride<<<numBlocks, blockSize>>>(A, B, C, M, N, K);
    cudaDeviceSynchronize();

    float ref = 0.0f;
    for (int k = 0; k < K; k++) ref += A[186 * K + k] * B[k * N + 140];
    printf("C[186][140] = %f ref %f\n", C[186 * N + 140], ref);

    cudaFree(A); cudaFree(B); cudaFree(C);
    return 0;
}
