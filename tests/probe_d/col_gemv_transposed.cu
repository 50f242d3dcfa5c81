// launch: grid cdiv(n, 128) block 128
// sizes: m=1500 n=700 alpha=2.0 beta=0.5
// expect: column
// Transposed GEMV y = alpha * A^T x + beta * y for row-major A (m x n), one thread per column (hand-written cublasSgemv 'T' replacement)
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

__global__ void gemv_t_kernel(const float* __restrict__ A, const float* __restrict__ x,
                              float* __restrict__ y, int m, int n, float alpha, float beta)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col < n) {
        float s = 0.0f;
        for (int row = 0; row < m; ++row)
            s += A[row * n + col] * x[row];
        y[col] = alpha * s + beta * y[col];
    }
}

int main()
{
    constexpr int m = 1500;
    constexpr int n = 700;
    constexpr int threads = 128;
    std::vector<float> hA(m * n, 0.5f), hx(m, 1.0f), hy(n, 1.0f);

    float *dA, *dx, *dy;
    cudaMalloc(&dA, sizeof(float) * m * n);
    cudaMalloc(&dx, sizeof(float) * m);
    cudaMalloc(&dy, sizeof(float) * n);
    cudaMemcpy(dA, hA.data(), sizeof(float) * m * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dx, hx.data(), sizeof(float) * m, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, hy.data(), sizeof(float) * n, cudaMemcpyHostToDevice);

    gemv_t_kernel<<<(n + threads - 1) / threads, threads>>>(dA, dx, dy, m, n, 2.0f, 0.5f);
    cudaMemcpy(hy.data(), dy, sizeof(float) * n, cudaMemcpyDeviceToHost);
    printf("y[0] = %f (expected %f)\n", hy[0], 2.0f * 0.5f * m + 0.5f);

    cudaFree(dA); cudaFree(dx); cudaFree(dy);
    return 0;
}
