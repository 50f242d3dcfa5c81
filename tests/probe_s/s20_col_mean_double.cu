// style: data-science preprocessing snippet "feature means" (column means of a row-major samples x features matrix); one thread per column, double accumulator acc += data[r * cols + col] down the rows, result cast back with static_cast<float>(acc / rows), negated guard if (!(col < cols)) return, host main with cudaMalloc/cudaMemcpy
// launch: grid cdiv(cols, 256) block 256
// sizes: rows=123 cols=301
// expect: column
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void column_means(const float *data, float *means, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (!(col < cols)) return;

    double acc = 0.0;
    for (int r = 0; r < rows; ++r)
        acc += data[(size_t)r * cols + col];
    means[col] = static_cast<float>(acc / rows);
}

int main()
{
    const int rows = 123, cols = 301;
    size_t bytes = sizeof(float) * rows * cols;
    float *h_data = (float *)malloc(bytes);
    float *h_means = (float *)malloc(cols * sizeof(float));
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            h_data[r * cols + c] = (float)(r + c) * 0.01f;

    float *d_data, *d_means;
    cudaMalloc((void **)&d_data, bytes);
    cudaMalloc((void **)&d_means, cols * sizeof(float));
    cudaMemcpy(d_data, h_data, bytes, cudaMemcpyHostToDevice);

    int threads = 256;
    int blocks = (cols + threads - 1) / threads;
    column_means<<<blocks, threads>>>(d_data, d_means, rows, cols);
    cudaMemcpy(h_means, d_means, cols * sizeof(float), cudaMemcpyDeviceToHost);

    printf("mean[0] = %f, mean[%d] = %f\n", h_means[0], cols - 1, h_means[cols - 1]);
    cudaFree(d_data);
    cudaFree(d_means);
    free(h_data);
    free(h_means);
    return 0;
}
