// style: data-science "column means of a row-major table" (feature standardisation prep) kernel; one thread per column walking all rows with a size_t offset, double accumulator, __restrict__, result divided by the row count, host code with cudaMalloc/cudaMemcpy
// launch: grid cdiv(cols, 128) block 128
// sizes: rows=67 cols=301
// expect: column
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void column_mean(const float* __restrict__ X, float* __restrict__ mean, int rows, int cols)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= cols) return;

    double acc = 0.0;
    for (int r = 0; r < rows; ++r) {
        acc += X[static_cast<size_t>(r) * cols + col];
    }
    mean[col] = static_cast<float>(acc / rows);
}

int main()
{
    const int rows = 67, cols = 301;
    std::vector<float> h_X(static_cast<size_t>(rows) * cols), h_mean(cols);
    for (size_t i = 0; i < h_X.size(); ++i) h_X[i] = static_cast<float>(i % 17);

    float *d_X = nullptr, *d_mean = nullptr;
    cudaMalloc(&d_X, h_X.size() * sizeof(float));
    cudaMalloc(&d_mean, cols * sizeof(float));
    cudaMemcpy(d_X, h_X.data(), h_X.size() * sizeof(float), cudaMemcpyHostToDevice);

    const int threads = 128;
    column_mean<<<(cols + threads - 1) / threads, threads>>>(d_X, d_mean, rows, cols);
    cudaMemcpy(h_mean.data(), d_mean, cols * sizeof(float), cudaMemcpyDeviceToHost);
    printf("mean[0]=%f mean[%d]=%f\n", h_mean[0], cols - 1, h_mean[cols - 1]);

    cudaFree(d_X); cudaFree(d_mean);
    return 0;
}
