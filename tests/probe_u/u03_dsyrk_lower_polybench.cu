// style: PolyBench/GPU-like SYRK in double precision (DATA_TYPE macro), C = alpha*A*A^T + beta*C written ONLY for the lower triangle (j <= i guard), A is N x M, beta applied inside the kernel, host main with init_arrays and a CPU compare
// launch: grid cdiv(n, 32), cdiv(n, 8) block 32, 8
// sizes: n=83 m=57 alpha=1.5 beta=0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda.h>

#define DATA_TYPE double
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8
#define PERCENT_DIFF_ERROR_THRESHOLD 0.05

#define N_SIZE 83
#define M_SIZE 57

void init_arrays(DATA_TYPE *alpha, DATA_TYPE *beta, DATA_TYPE *A, DATA_TYPE *C, int n, int m)
{
    *alpha = 32412;
    *beta = 2123;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            A[i * m + j] = ((DATA_TYPE)i * j) / n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            C[i * n + j] = ((DATA_TYPE)i * j + 2) / n;
}

void syrk_cpu(DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *A, DATA_TYPE *C, int n, int m)
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j <= i; j++) {
            C[i * n + j] *= beta;
            for (int k = 0; k < m; k++)
                C[i * n + j] += alpha * A[i * m + k] * A[j * m + k];
        }
    }
}

__global__ void syrk_lower_kernel(int n, int m, DATA_TYPE alpha, DATA_TYPE beta,
                                  const DATA_TYPE *a, DATA_TYPE *c)
{
    /*  C := alpha*A*A' + beta*C, lower triangle  */
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;

    if ((i < n) && (j <= i)) {
        DATA_TYPE acc = c[i * n + j] * beta;
        int k;
        for (k = 0; k < m; k++) {
            acc += alpha * a[i * m + k] * a[j * m + k];
        }
        c[i * n + j] = acc;
    }
}

static double percentDiff(double val1, double val2)
{
    if ((fabs(val1) < 0.01) && (fabs(val2) < 0.01)) return 0.0;
    return 100.0 * fabs(fabs(val1 - val2) / fabs(val1 + 0.00000001));
}

int main()
{
    int n = N_SIZE, m = M_SIZE;
    DATA_TYPE alpha, beta;
    DATA_TYPE *A = (DATA_TYPE *)malloc(n * m * sizeof(DATA_TYPE));
    DATA_TYPE *C = (DATA_TYPE *)malloc(n * n * sizeof(DATA_TYPE));
    DATA_TYPE *C_out = (DATA_TYPE *)malloc(n * n * sizeof(DATA_TYPE));

    init_arrays(&alpha, &beta, A, C, n, m);

    DATA_TYPE *A_gpu, *C_gpu;
    cudaMalloc((void **)&A_gpu, sizeof(DATA_TYPE) * n * m);
    cudaMalloc((void **)&C_gpu, sizeof(DATA_TYPE) * n * n);
    cudaMemcpy(A_gpu, A, sizeof(DATA_TYPE) * n * m, cudaMemcpyHostToDevice);
    cudaMemcpy(C_gpu, C, sizeof(DATA_TYPE) * n * n, cudaMemcpyHostToDevice);

    dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
    dim3 grid((size_t)(ceil(((float)n) / ((float)DIM_THREAD_BLOCK_X))),
              (size_t)ceil(((float)n) / ((float)DIM_THREAD_BLOCK_Y)));
    syrk_lower_kernel<<<grid, block>>>(n, m, alpha, beta, A_gpu, C_gpu);
    cudaDeviceSynchronize();

    cudaMemcpy(C_out, C_gpu, sizeof(DATA_TYPE) * n * n, cudaMemcpyDeviceToHost);

    syrk_cpu(alpha, beta, A, C, n, m);
    int fail = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++)
            if (percentDiff(C[i * n + j], C_out[i * n + j]) > PERCENT_DIFF_ERROR_THRESHOLD) fail++;
    printf("Non-Matching CPU-GPU Outputs Beyond Error Threshold of %4.2f Percent: %d\n",
           PERCENT_DIFF_ERROR_THRESHOLD, fail);

    cudaFree(A_gpu); cudaFree(C_gpu);
    free(A); free(C); free(C_out);
    return 0;
}
