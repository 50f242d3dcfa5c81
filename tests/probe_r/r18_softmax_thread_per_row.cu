// style: llm.c dev/cuda softmax_forward_kernel1 ("one thread per row"); three passes over the row (max with fmaxf, sum of expf(x - max), normalise by 1/sum), row pointer inp + i*C, N rows, host main with cudaMalloc/cudaMemcpy
// launch: grid cdiv(N, 128) block 128
// sizes: N=203 C=77
// expect: row-warp|row-block
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <float.h>
#include <cuda_runtime.h>

__global__ void softmax_forward_kernel1(float* out, const float* inp, int N, int C) {
    // inp is (N, C), out is (N, C); each row of inp is a set of logits
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        const float* inp_row = inp + i * C;
        float* out_row = out + i * C;

        float maxval = -FLT_MAX;
        for (int j = 0; j < C; j++) {
            maxval = fmaxf(maxval, inp_row[j]);
        }
        float sum = 0.0f;
        for (int j = 0; j < C; j++) {
            sum += expf(inp_row[j] - maxval);
        }
        float norm = 1.0f / sum;
        for (int j = 0; j < C; j++) {
            out_row[j] = expf(inp_row[j] - maxval) * norm;
        }
    }
}

int main(void) {
    int N = 203, C = 77;
    size_t bytes = (size_t)N * C * sizeof(float);
    float* inp = (float*)malloc(bytes);
    float* out = (float*)malloc(bytes);
    for (int i = 0; i < N * C; i++) { inp[i] = ((float)rand() / RAND_MAX) * 8.0f - 4.0f; }

    float *d_inp, *d_out;
    cudaMalloc(&d_inp, bytes);
    cudaMalloc(&d_out, bytes);
    cudaMemcpy(d_inp, inp, bytes, cudaMemcpyHostToDevice);

    int block_size = 128;
    int grid_size = (N + block_size - 1) / block_size;
    softmax_forward_kernel1<<<grid_size, block_size>>>(d_out, d_inp, N, C);
    cudaMemcpy(out, d_out, bytes, cudaMemcpyDeviceToHost);

    float rowsum = 0.0f;
    for (int j = 0; j < C; j++) rowsum += out[j];
    printf("row 0 sums to %f\n", rowsum);

    cudaFree(d_inp); cudaFree(d_out);
    free(inp); free(out);
    return 0;
}
