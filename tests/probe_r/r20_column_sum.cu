// style: data-science course notebook "column totals of a table on the GPU"; row-major matrix rows x cols, one thread per column looping down the rows with data[r * cols + c], float accumulator named total, host main with cudaMalloc/cudaMemcpy
// launch: grid cdiv(cols, 64) block 64
// sizes: rows=301 cols=93
// expect: column
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void column_sums(const float *data, float *colsum, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cols) {
        float total = 0.0f;
        for (int r = 0; r < rows; ++r)
            total += data[r * cols + c];
        colsum[c] = total;
    }
}

int main()
{
    const int rows = 301, cols = 93;
    std::vector<float> h(rows * cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            h[r * cols + c] = (float)c + 0.001f * r;
    std::vector<float> out(cols);

    float *d_data, *d_sum;
    cudaMalloc(&d_data, h.size() * sizeof(float));
    cudaMalloc(&d_sum, cols * sizeof(float));
    cudaMemcpy(d_data, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);

    column_sums<<<(cols + 63) / 64, 64>>>(d_data, d_sum, rows, cols);
    cudaMemcpy(out.data(), d_sum, cols * sizeof(float), cudaMemcpyDeviceToHost);
    printf("colsum[0]=%f colsum[%d]=%f\n", out[0], cols - 1, out[cols - 1]);

    cudaFree(d_data); cudaFree(d_sum);
    return 0;
}
