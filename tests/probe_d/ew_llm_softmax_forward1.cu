// launch: grid cdiv(N, 128) block 128
// sizes: N=900 C=700
// expect: row-warp|row-block
// llm.c dev/cuda/softmax_forward.cu kernel 1: one thread per row, max / exp-sum (double) / normalize
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))

__global__ void softmax_forward_kernel1(float* out, const float* inp, int N, int C) {
    // inp is (N, C)
    // out is (N, C), each row of inp will get softmaxed
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        const float* inp_row = inp + i * C;
        float* out_row = out + i * C;

        float maxval = -INFINITY;
        for (int j = 0; j < C; j++) {
            if (inp_row[j] > maxval) {
                maxval = inp_row[j];
            }
        }
        double sum = 0.0;
        for (int j = 0; j < C; j++) {
            out_row[j] = expf(inp_row[j] - maxval);
            sum += out_row[j];
        }
        for (int j = 0; j < C; j++) {
            out_row[j] /= (float)sum;
        }
    }
}

void softmax_forward1(float* out, const float* inp, int N, int C, const int block_size) {
    const int grid_size = CEIL_DIV(N, block_size);
    softmax_forward_kernel1<<<grid_size, block_size>>>(out, inp, N, C);
}

int main(int argc, char **argv) {
    int B = 4, T = 225, V = 700;
    int N = B * T;
    float* inp = (float*)malloc(N * V * sizeof(float));
    for (int i = 0; i < N * V; i++) inp[i] = ((float)rand() / RAND_MAX) * 2.0f - 1.0f;

    float *d_out, *d_inp;
    cudaMalloc(&d_out, N * V * sizeof(float));
    cudaMalloc(&d_inp, N * V * sizeof(float));
    cudaMemcpy(d_inp, inp, N * V * sizeof(float), cudaMemcpyHostToDevice);

    softmax_forward1(d_out, d_inp, N, V, 128);
    cudaDeviceSynchronize();

    free(inp);
    cudaFree(d_out);
    cudaFree(d_inp);
    return 0;
}
