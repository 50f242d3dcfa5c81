// style: complex matrix product with planar (separate real/imag) storage, one thread per C element
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=121 N=137 K=163
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

// (Cr + i Ci) = (Ar + i Ai) * (Br + i Bi), A is M x K, B is K x N, row-major
__global__ void cgemm_planar(const float *Ar, const float *Ai,
                             const float *Br, const float *Bi,
                             float *Cr, float *Ci, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;

    if (row < M && col < N) {
        float re = 0.0f, im = 0.0f;
        for (int k = 0; k < K; k++) {
            float ar = Ar[row * K + k], ai = Ai[row * K + k];
            float br = Br[k * N + col], bi = Bi[k * N + col];
            re += ar * br - ai * bi;
            im += ar * bi + ai * br;
        }
        Cr[row * N + col] = re;
        Ci[row * N + col] = im;
    }
}

int main()
{
    int M = 121, N = 137, K = 163;
    size_t szA = M * K * sizeof(float), szB = K * N * sizeof(float), szC = M * N * sizeof(float);
    float *hAr = (float *)malloc(szA), *hAi = (float *)malloc(szA);
    float *hBr = (float *)malloc(szB), *hBi = (float *)malloc(szB);
    float *hCr = (float *)malloc(szC), *hCi = (float *)malloc(szC);
    for (int i = 0; i < M * K; i++) { hAr[i] = 1.0f; hAi[i] = 0.5f; }
    for (int i = 0; i < K * N; i++) { hBr[i] = 0.25f; hBi[i] = -1.0f; }

    float *dAr, *dAi, *dBr, *dBi, *dCr, *dCi;
    cudaMalloc(&dAr, szA); cudaMalloc(&dAi, szA);
    cudaMalloc(&dBr, szB); cudaMalloc(&dBi, szB);
    cudaMalloc(&dCr, szC); cudaMalloc(&dCi, szC);
    cudaMemcpy(dAr, hAr, szA, cudaMemcpyHostToDevice);
    cudaMemcpy(dAi, hAi, szA, cudaMemcpyHostToDevice);
    cudaMemcpy(dBr, hBr, szB, cudaMemcpyHostToDevice);
    cudaMemcpy(dBi, hBi, szB, cudaMemcpyHostToDevice);

    dim3 threads(16, 16);
    dim3 blocks((N + 15) / 16, (M + 15) / 16);
    cgemm_planar<<<blocks, threads>>>(dAr, dAi, dBr, dBi, dCr, dCi, M, N, K);

    cudaMemcpy(hCr, dCr, szC, cudaMemcpyDeviceToHost);
    cudaMemcpy(hCi, dCi, szC, cudaMemcpyDeviceToHost);
    printf("C[0] = %f + %fi\n", hCr[0], hCi[0]);

    cudaFree(dAr); cudaFree(dAi); cudaFree(dBr); cudaFree(dBi); cudaFree(dCr); cudaFree(dCi);
    free(hAr); free(hAi); free(hBr); free(hBi); free(hCr); free(hCi);
    return 0;
}
