// style: course homework y = A^T x with row-major A (M x N), one thread per column j; accumulates straight into global memory with an element-wise `y[j] += A[i*N+j] * x[i]` inside the i loop (y zeroed beforehand by cudaMemset), host main with a CPU reference
// launch: grid cdiv(N, 128) block 128
// sizes: M=71 N=93
// expect: column
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

__global__ void matvec_transpose(const float *A, const float *x, float *y, int M, int N)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < N) {
        for (int i = 0; i < M; i++) {
            y[j] += A[i * N + j] * x[i];
        }
    }
}

int main()
{
    int M = 71, N = 93;
    float *A = (float *)malloc(M * N * sizeof(float));
    float *x = (float *)malloc(M * sizeof(float));
    float *y = (float *)malloc(N * sizeof(float));
    for (int i = 0; i < M * N; i++) A[i] = (float)((i * 7) % 13) / 13.0f;
    for (int i = 0; i < M; i++) x[i] = 1.0f / (i + 1);

    float *d_A, *d_x, *d_y;
    cudaMalloc(&d_A, M * N * sizeof(float));
    cudaMalloc(&d_x, M * sizeof(float));
    cudaMalloc(&d_y, N * sizeof(float));
    cudaMemcpy(d_A, A, M * N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_x, x, M * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_y, 0, N * sizeof(float));

    matvec_transpose<<<(N + 127) / 128, 128>>>(d_A, d_x, d_y, M, N);
    cudaMemcpy(y, d_y, N * sizeof(float), cudaMemcpyDeviceToHost);

    float maxerr = 0.0f;
    for (int j = 0; j < N; j++) {
        float ref = 0.0f;
        for (int i = 0; i < M; i++) ref += A[i * N + j] * x[i];
        maxerr = fmaxf(maxerr, fabsf(ref - y[j]));
    }
    printf("max error = %g\n", maxerr);
    cudaFree(d_A); cudaFree(d_x); cudaFree(d_y);
    free(A); free(x); free(y);
    return 0;
}
