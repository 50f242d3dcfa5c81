// style: embedding-normalisation helper from a retrieval repo: one thread per row, row pointer, rsqrtf with eps, in-place, host wrapper
// launch: grid cdiv(rows, 128) block 128
// sizes: rows=257 cols=93 eps=1e-6
// expect: row-warp|row-block
#include <cuda_runtime.h>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) return e_; } while (0)

__global__ void l2_normalize_rows(float *data, int rows, int cols, float eps)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float *row = data + (size_t)r * cols;
        float ss = 0.f;
        for (int c = 0; c < cols; ++c)
            ss += row[c] * row[c];
        float inv = rsqrtf(ss + eps);
        for (int c = 0; c < cols; ++c)
            row[c] *= inv;
    }
}

cudaError_t l2_normalize_host(float *h_data, int rows, int cols, float eps)
{
    float *d_data = nullptr;
    size_t bytes = (size_t)rows * cols * sizeof(float);
    CUDA_CHECK(cudaMalloc(&d_data, bytes));
    CUDA_CHECK(cudaMemcpy(d_data, h_data, bytes, cudaMemcpyHostToDevice));
    int threads = 128;
    int blocks = (rows + threads - 1) / threads;
    l2_normalize_rows<<<blocks, threads>>>(d_data, rows, cols, eps);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_data, d_data, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_data));
    return cudaSuccess;
}
