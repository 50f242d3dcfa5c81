// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M N K
// reference: C = A.T @ B.T (fp16 operands stored K x M and N x K, float sums, fp16 output)
// recognise: rows y, columns x, transposed
#include <cuda_fp16.h>
__global__ void hgemm_tn(const __half* A, const __half* B, __half* C, int M, int N, int K) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += __half2float(A[k * M + row]) * __half2float(B[col * K + k]);
        C[row * N + col] = __float2half(acc);
    }
}
