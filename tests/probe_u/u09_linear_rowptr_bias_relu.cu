// style: llm.c / "write an MLP in CUDA" blog linear layer: out = relu(inp @ weight^T + bias) with weight stored (OC, C) PyTorch-style, spelled as a dot product through row pointers (const float* x = inp + row*C; const float* w = weight + col*C), optional bias (NULL allowed), rows over B*T, host main
// launch: grid cdiv(OC, 16), cdiv(B * T, 16) block 16, 16
// sizes: B=3 T=25 C=45 OC=93
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define cudaCheck(err) (cudaCheckImpl(err, __FILE__, __LINE__))
static void cudaCheckImpl(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}

__global__ void linear_relu_forward_kernel(float *out,
                                           const float *inp, const float *weight, const float *bias,
                                           int B, int T, int C, int OC)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;   // over B*T
    int col = blockIdx.x * blockDim.x + threadIdx.x;   // over OC
    if (row < B * T && col < OC) {
        const float *x = inp + row * C;
        const float *w = weight + col * C;
        float sum = (bias != NULL) ? bias[col] : 0.0f;
        for (int i = 0; i < C; i++) {
            sum += x[i] * w[i];
        }
        out[row * OC + col] = sum > 0.0f ? sum : 0.0f;
    }
}

static float *make_random_float(size_t n)
{
    float *a = (float *)malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) a[i] = ((float)rand() / RAND_MAX) * 2.0f - 1.0f;
    return a;
}

int main(void)
{
    int B = 3, T = 25, C = 45, OC = 93;
    float *inp = make_random_float(B * T * C);
    float *weight = make_random_float(OC * C);
    float *bias = make_random_float(OC);
    float *out = (float *)malloc(B * T * OC * sizeof(float));

    float *d_inp, *d_weight, *d_bias, *d_out;
    cudaCheck(cudaMalloc(&d_inp, B * T * C * sizeof(float)));
    cudaCheck(cudaMalloc(&d_weight, OC * C * sizeof(float)));
    cudaCheck(cudaMalloc(&d_bias, OC * sizeof(float)));
    cudaCheck(cudaMalloc(&d_out, B * T * OC * sizeof(float)));
    cudaCheck(cudaMemcpy(d_inp, inp, B * T * C * sizeof(float), cudaMemcpyHostToDevice));
    cudaCheck(cudaMemcpy(d_weight, weight, OC * C * sizeof(float), cudaMemcpyHostToDevice));
    cudaCheck(cudaMemcpy(d_bias, bias, OC * sizeof(float), cudaMemcpyHostToDevice));

    int sqrt_block_size = 16;
    dim3 gridDim((OC + sqrt_block_size - 1) / sqrt_block_size,
                 (B * T + sqrt_block_size - 1) / sqrt_block_size);
    dim3 blockDim(sqrt_block_size, sqrt_block_size);
    linear_relu_forward_kernel<<<gridDim, blockDim>>>(d_out, d_inp, d_weight, d_bias, B, T, C, OC);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(out, d_out, B * T * OC * sizeof(float), cudaMemcpyDeviceToHost));

    int bad = 0;
    for (int r = 0; r < B * T; r++) {
        for (int o = 0; o < OC; o++) {
            float s = bias[o];
            for (int i = 0; i < C; i++) s += inp[r * C + i] * weight[o * C + i];
            s = s > 0.0f ? s : 0.0f;
            if (fabsf(s - out[r * OC + o]) > 1e-4f) bad++;
        }
    }
    printf("mismatches: %d\n", bad);

    cudaFree(d_inp); cudaFree(d_weight); cudaFree(d_bias); cudaFree(d_out);
    free(inp); free(weight); free(bias); free(out);
    return 0;
}
