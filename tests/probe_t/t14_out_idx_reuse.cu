// style: finite-element assembly / accumulate-into-output code; output index computed once into int out_idx and reused for the load and the store, C += A*B (accumulator seeded from C[out_idx]), A/B index bases a_base/b_base precomputed, host main with cudaMalloc/cudaMemset/cudaMemcpy
// launch: grid cdiv(n_cols, 16), cdiv(n_rows, 16) block 16, 16
// sizes: n_rows=67 n_cols=93 n_inner=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <cuda_runtime.h>

__global__ void gemm_accumulate(const float *A, const float *B, float *C,
                                int n_rows, int n_cols, int n_inner)
{
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n_rows || c >= n_cols) return;

    int out_idx = r * n_cols + c;
    int a_base = r * n_inner;
    int b_base = c;

    float acc = C[out_idx];
    for (int q = 0; q < n_inner; ++q) {
        acc += A[a_base + q] * B[b_base + q * n_cols];
    }
    C[out_idx] = acc;
}

int main()
{
    const int n_rows = 67, n_cols = 93, n_inner = 45;
    static float hA[n_rows * n_inner], hB[n_inner * n_cols], hC[n_rows * n_cols];
    for (int i = 0; i < n_rows * n_inner; ++i) hA[i] = (float)((i * 7) % 10) * 0.1f;
    for (int i = 0; i < n_inner * n_cols; ++i) hB[i] = (float)((i * 3) % 8) * 0.125f;

    float *dA, *dB, *dC;
    cudaMalloc(&dA, sizeof(hA));
    cudaMalloc(&dB, sizeof(hB));
    cudaMalloc(&dC, sizeof(hC));
    cudaMemcpy(dA, hA, sizeof(hA), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, sizeof(hB), cudaMemcpyHostToDevice);
    cudaMemset(dC, 0, sizeof(hC));

    dim3 block(16, 16);
    dim3 grid((n_cols + 15) / 16, (n_rows + 15) / 16);
    gemm_accumulate<<<grid, block>>>(dA, dB, dC, n_rows, n_cols, n_inner);
    cudaMemcpy(hC, dC, sizeof(hC), cudaMemcpyDeviceToHost);

    printf("C[0]=%f C[last]=%f\n", hC[0], hC[n_rows * n_cols - 1]);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    return 0;
}
