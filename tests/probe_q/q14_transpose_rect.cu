// style: NVIDIA "transpose" sample's copy-then-naive stage for a non-square matrix; rows x cols input to cols x rows output, reads coalesced / writes strided, width/height named rows/cols, host code with cudaMalloc/cudaMemcpy and a CPU check
// launch: grid cdiv(cols, 32), cdiv(rows, 8) block 32, 8
// sizes: rows=67 cols=131
// expect: transpose-tile
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void transposeNaive(float* odata, const float* idata, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols)
        odata[c * rows + r] = idata[r * cols + c];
}

int main()
{
    const int rows = 67, cols = 131;
    const size_t n = (size_t)rows * cols;
    float* h_in = (float*)malloc(n * sizeof(float));
    float* h_out = (float*)malloc(n * sizeof(float));
    for (size_t i = 0; i < n; ++i) h_in[i] = (float)i;

    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);

    dim3 threads(32, 8);
    dim3 grid((cols + 31) / 32, (rows + 7) / 8);
    transposeNaive<<<grid, threads>>>(d_out, d_in, rows, cols);
    cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);

    int bad = 0;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            if (h_out[c * rows + r] != h_in[r * cols + c]) ++bad;
    printf("%s\n", bad ? "FAIL" : "PASS");

    cudaFree(d_in); cudaFree(d_out); free(h_in); free(h_out);
    return 0;
}
