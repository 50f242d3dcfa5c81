// launch: grid cdiv(rows, 256) block 256
// sizes: rows=1200 cols=800
// expect: row-warp|row-block
// Dense matrix-vector product y = A x, one thread per row (Rodinia/CUDA-course "mv" baseline), __ldg on the vector
#include <cuda_runtime.h>
#include <cstdio>

#define ROWS 1200
#define COLS 800

__global__ void gemv_row(const float* __restrict__ A, const float* __restrict__ x,
                         float* __restrict__ y, int rows, int cols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        const float* a = A + (size_t)row * cols;
        float dot = 0.0f;
        for (int j = 0; j < cols; ++j)
            dot += a[j] * __ldg(&x[j]);
        y[row] = dot;
    }
}

int main()
{
    float *A, *x, *y;
    cudaMallocManaged(&A, ROWS * COLS * sizeof(float));
    cudaMallocManaged(&x, COLS * sizeof(float));
    cudaMallocManaged(&y, ROWS * sizeof(float));
    for (int i = 0; i < ROWS * COLS; ++i) A[i] = 1.0f / (1 + i % 9);
    for (int j = 0; j < COLS; ++j) x[j] = 1.0f;

    gemv_row<<<(ROWS + 255) / 256, 256>>>(A, x, y, ROWS, COLS);
    cudaDeviceSynchronize();
    printf("y[0]=%f\n", y[0]);
    cudaFree(A); cudaFree(x); cudaFree(y);
    return 0;
}
