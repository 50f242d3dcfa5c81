// style: CUDA-samples-era "naive transpose" exercise with a rectangular rows x cols matrix, reads coalesced and writes strided, unsigned int indices, 16x16 blocks, host main with bandwidth timing via cudaEvent
// launch: grid cdiv(cols, 16), cdiv(rows, 16) block 16, 16
// sizes: rows=67 cols=129
// expect: transpose-tile|gather
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void transposeNaiveRect(float *odata, const float *idata,
                                   unsigned int rows, unsigned int cols)
{
    unsigned int c = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (c < cols && r < rows)
        odata[c * rows + r] = idata[r * cols + c];
}

int main()
{
    const unsigned int rows = 67, cols = 129;
    const size_t mem = sizeof(float) * rows * cols;
    float *h_in = (float *)malloc(mem), *h_out = (float *)malloc(mem);
    for (unsigned int i = 0; i < rows * cols; i++) h_in[i] = (float)i;

    float *d_in, *d_out;
    cudaMalloc(&d_in, mem);
    cudaMalloc(&d_out, mem);
    cudaMemcpy(d_in, h_in, mem, cudaMemcpyHostToDevice);

    dim3 threads(16, 16);
    dim3 grid((cols + threads.x - 1) / threads.x, (rows + threads.y - 1) / threads.y);

    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start);
    const int reps = 100;
    for (int i = 0; i < reps; i++)
        transposeNaiveRect<<<grid, threads>>>(d_out, d_in, rows, cols);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0.f;
    cudaEventElapsedTime(&ms, start, stop);
    printf("bandwidth: %.2f GB/s\n", 2.0 * mem * reps / (ms * 1e6));

    cudaMemcpy(h_out, d_out, mem, cudaMemcpyDeviceToHost);
    bool ok = true;
    for (unsigned int r = 0; r < rows && ok; r++)
        for (unsigned int c = 0; c < cols; c++)
            if (h_out[c * rows + r] != h_in[r * cols + c]) { ok = false; break; }
    printf("%s\n", ok ? "Test PASSED" : "Test FAILED");

    cudaEventDestroy(start); cudaEventDestroy(stop);
    cudaFree(d_in); cudaFree(d_out);
    free(h_in); free(h_out);
    return 0;
}
