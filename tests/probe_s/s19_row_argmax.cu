// style: classifier-inference sample "predicted class per sample"; one thread per row of a row-major logits matrix, best/bestIdx running pair with strict > so the first maximum wins, unsigned loop counter j and static_cast<size_t> row offset, int output indices, host main with cudaMalloc/cudaMemcpy
// launch: grid cdiv(nrows, 128) block 128
// sizes: nrows=211 ncols=97
// expect: row-warp|row-block
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void row_argmax(const float *logits, int *labels, int nrows, int ncols)
{
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < nrows) {
        const float *p = logits + static_cast<size_t>(row) * ncols;
        float best = p[0];
        int bestIdx = 0;
        for (unsigned j = 1; j < static_cast<unsigned>(ncols); ++j) {
            float v = p[j];
            if (v > best) {
                best = v;
                bestIdx = static_cast<int>(j);
            }
        }
        labels[row] = bestIdx;
    }
}

int main()
{
    const int nrows = 211, ncols = 97;
    std::vector<float> h_logits(static_cast<size_t>(nrows) * ncols);
    for (int r = 0; r < nrows; ++r)
        for (int c = 0; c < ncols; ++c)
            h_logits[static_cast<size_t>(r) * ncols + c] = static_cast<float>((r * 31 + c * 17) % 101);
    std::vector<int> h_labels(nrows);

    float *d_logits;
    int *d_labels;
    cudaMalloc(&d_logits, h_logits.size() * sizeof(float));
    cudaMalloc(&d_labels, nrows * sizeof(int));
    cudaMemcpy(d_logits, h_logits.data(), h_logits.size() * sizeof(float), cudaMemcpyHostToDevice);

    const int block = 128;
    const int grid = (nrows + block - 1) / block;
    row_argmax<<<grid, block>>>(d_logits, d_labels, nrows, ncols);
    cudaMemcpy(h_labels.data(), d_labels, nrows * sizeof(int), cudaMemcpyDeviceToHost);

    printf("labels[0] = %d, labels[%d] = %d\n", h_labels[0], nrows - 1, h_labels[nrows - 1]);
    cudaFree(d_logits);
    cudaFree(d_labels);
    return 0;
}
