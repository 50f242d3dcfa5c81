// style: multi-target tracking / ensemble Kalman filter update step written as a chain of naive kernels over a bank of filters (filter index on blockIdx.z, per-filter strides n*n / n*m / m*m): first PHt = P * H^T (n x m), then the target S = H * PHt + R (m x m innovation covariance, R added as the initial value of the accumulator); H and R shared by every filter, row-major, host main running the chain and checking S on the CPU
// kernel: kalman_innovation_cov
// launch: grid cdiv(m, 16), cdiv(m, 16), nf block 16, 16
// sizes: n=37 m=19 nf=3
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "CUDA %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(1); } } while (0)

// PHt[f] (n x m) = P[f] (n x n) * H^T,  H is m x n
__global__ void kalman_pht(const float* P, const float* H, float* PHt, int n, int m, int nf)
{
    int f = blockIdx.z;
    int r = blockIdx.y * blockDim.y + threadIdx.y;   // state index
    int c = blockIdx.x * blockDim.x + threadIdx.x;   // measurement index
    if (f >= nf || r >= n || c >= m) return;
    const float* Pf = P + (size_t)f * n * n;
    float acc = 0.0f;
    for (int k = 0; k < n; ++k)
        acc += Pf[r * n + k] * H[c * n + k];
    PHt[(size_t)f * n * m + r * m + c] = acc;
}

// S[f] (m x m) = H (m x n) * PHt[f] (n x m) + R (m x m)
__global__ void kalman_innovation_cov(const float* H, const float* PHt, const float* R, float* S,
                                      int n, int m, int nf)
{
    int f = blockIdx.z;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= nf || r >= m || c >= m) return;
    const float* PHtf = PHt + (size_t)f * n * m;
    float s = R[r * m + c];
    for (int k = 0; k < n; ++k)
        s += H[r * n + k] * PHtf[k * m + c];
    S[(size_t)f * m * m + r * m + c] = s;
}

int main()
{
    const int n = 37, m = 19, nf = 3;
    size_t szP = (size_t)nf * n * n, szH = (size_t)m * n, szR = (size_t)m * m;
    size_t szPHt = (size_t)nf * n * m, szS = (size_t)nf * m * m;

    float* hP = (float*)malloc(szP * sizeof(float));
    float* hH = (float*)malloc(szH * sizeof(float));
    float* hR = (float*)malloc(szR * sizeof(float));
    float* hS = (float*)malloc(szS * sizeof(float));
    // symmetric positive covariances: P = 0.1 + diag
    for (int f = 0; f < nf; ++f)
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                hP[(size_t)f * n * n + i * n + j] = (i == j ? 1.0f + 0.1f * f : 0.05f / (1 + abs(i - j)));
    for (size_t t = 0; t < szH; ++t) hH[t] = ((t * 7) % 5 == 0) ? 1.0f : 0.0f;
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j) hR[i * m + j] = (i == j) ? 0.25f : 0.0f;

    float *dP, *dH, *dR, *dPHt, *dS;
    CUDA_CHECK(cudaMalloc(&dP, szP * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dH, szH * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dR, szR * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dPHt, szPHt * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dS, szS * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(dP, hP, szP * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dH, hH, szH * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dR, hR, szR * sizeof(float), cudaMemcpyHostToDevice));

    dim3 block(16, 16);
    dim3 grid1((m + 15) / 16, (n + 15) / 16, nf);
    kalman_pht<<<grid1, block>>>(dP, dH, dPHt, n, m, nf);
    dim3 grid2((m + 15) / 16, (m + 15) / 16, nf);
    kalman_innovation_cov<<<grid2, block>>>(dH, dPHt, dR, dS, n, m, nf);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(hS, dS, szS * sizeof(float), cudaMemcpyDeviceToHost));

    double maxerr = 0.0;
    for (int f = 0; f < nf; ++f)
        for (int r = 0; r < m; ++r)
            for (int c = 0; c < m; ++c) {
                double s = hR[r * m + c];
                for (int k = 0; k < n; ++k) {
                    double pht = 0.0;
                    for (int l = 0; l < n; ++l) pht += (double)hP[(size_t)f * n * n + k * n + l] * hH[c * n + l];
                    s += hH[r * n + k] * pht;
                }
                maxerr = fmax(maxerr, fabs(s - hS[(size_t)f * m * m + r * m + c]));
            }
    printf("S max error %g\n", maxerr);

    cudaFree(dP); cudaFree(dH); cudaFree(dR); cudaFree(dPHt); cudaFree(dS);
    free(hP); free(hH); free(hR); free(hS);
    return maxerr < 1e-3 ? 0 : 1;
}
