// launch: grid cdiv(OC, 32) block 32
// sizes: B=4 T=90 OC=600
// expect: column
// llm.c-style naive matmul_backward bias gradient: dbias[o] += sum over (b,t) of dout[b][t][o], one thread per output channel
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))

__global__ void matmul_backward_bias_naive(float* dbias, const float* dout, int B, int T, int OC) {
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o < OC) {
        float sum = 0.0f;
        for (int b = 0; b < B; b++) {
            for (int t = 0; t < T; t++) {
                sum += dout[b * T * OC + t * OC + o];
            }
        }
        dbias[o] += sum;
    }
}

int main(int argc, char **argv) {
    int B = 4;
    int T = 90;
    int OC = 600;
    int block_size = 32;
    if (argc > 1) { block_size = atoi(argv[1]); }

    float* dout = (float*)malloc(B * T * OC * sizeof(float));
    for (int i = 0; i < B * T * OC; i++) dout[i] = ((float)rand() / RAND_MAX) * 2.0f - 1.0f;

    float *d_dbias, *d_dout;
    cudaMalloc(&d_dbias, OC * sizeof(float));
    cudaMalloc(&d_dout, B * T * OC * sizeof(float));
    cudaMemcpy(d_dout, dout, B * T * OC * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_dbias, 0, OC * sizeof(float));

    matmul_backward_bias_naive<<<CEIL_DIV(OC, block_size), block_size>>>(d_dbias, d_dout, B, T, OC);
    cudaDeviceSynchronize();

    free(dout);
    cudaFree(d_dbias);
    cudaFree(d_dout);
    return 0;
}
