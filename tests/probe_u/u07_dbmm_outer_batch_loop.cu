// style: physics code batching many small double-precision products: each thread owns one (i,j) and loops over the batch itself (for b < nbatch) computing C[b][i][j]; C is zeroed and then accumulated with += directly in global memory inside the k loop; host main
// launch: grid cdiv(p, 16), cdiv(n, 16) block 16, 16
// sizes: nbatch=4 n=53 m=39 p=71
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

// A: nbatch x n x m, B: nbatch x m x p, C: nbatch x n x p
__global__ void batched_matmul_loop(const double *A, const double *B, double *C,
                                    int nbatch, int n, int m, int p)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || j >= p) return;

    for (int b = 0; b < nbatch; b++) {
        C[(b * n + i) * p + j] = 0.0;
        for (int k = 0; k < m; k++) {
            C[(b * n + i) * p + j] += A[(b * n + i) * m + k] * B[(b * m + k) * p + j];
        }
    }
}

int main()
{
    const int nbatch = 4, n = 53, m = 39, p = 71;
    size_t szA = (size_t)nbatch * n * m, szB = (size_t)nbatch * m * p, szC = (size_t)nbatch * n * p;

    double *hA = new double[szA], *hB = new double[szB], *hC = new double[szC];
    for (size_t i = 0; i < szA; i++) hA[i] = drand48() - 0.5;
    for (size_t i = 0; i < szB; i++) hB[i] = drand48() - 0.5;

    double *dA, *dB, *dC;
    cudaMalloc(&dA, szA * sizeof(double));
    cudaMalloc(&dB, szB * sizeof(double));
    cudaMalloc(&dC, szC * sizeof(double));
    cudaMemcpy(dA, hA, szA * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, szB * sizeof(double), cudaMemcpyHostToDevice);

    dim3 block(16, 16);
    dim3 grid((p + block.x - 1) / block.x, (n + block.y - 1) / block.y);
    batched_matmul_loop<<<grid, block>>>(dA, dB, dC, nbatch, n, m, p);
    cudaDeviceSynchronize();
    cudaMemcpy(hC, dC, szC * sizeof(double), cudaMemcpyDeviceToHost);

    double maxerr = 0.0;
    for (int b = 0; b < nbatch; b++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < p; j++) {
                double s = 0.0;
                for (int k = 0; k < m; k++)
                    s += hA[(b * n + i) * m + k] * hB[(b * m + k) * p + j];
                maxerr = fmax(maxerr, fabs(s - hC[(b * n + i) * p + j]));
            }
    printf("max error = %e\n", maxerr);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    delete[] hA; delete[] hB; delete[] hC;
    return 0;
}
