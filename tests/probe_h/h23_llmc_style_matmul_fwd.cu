// style: llm.c-style naive matmul_forward: out (B,T,OC) = inp (B,T,C) . weight(OC,C)^T + bias, with bt from threadIdx.x and oc from threadIdx.y, bias may be NULL
// launch: grid cdiv(B * T, 16), cdiv(OC, 16) block 16, 16
// sizes: B=3 T=61 C=223 OC=141
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce|matmul-library
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))

// out is (B,T,OC), inp is (B,T,C), weight is (OC,C), bias is (OC)
__global__ void matmul_forward_naive(float *out, const float *inp, const float *weight,
                                     const float *bias, int B, int T, int C, int OC)
{
    int bt = blockIdx.x * blockDim.x + threadIdx.x;
    int oc = blockIdx.y * blockDim.y + threadIdx.y;
    if (bt < B * T && oc < OC) {
        float val = (bias != NULL) ? bias[oc] : 0.0f;
        const float *wrow = weight + oc * C;
        const float *inp_bt = inp + bt * C;
        for (int i = 0; i < C; i++) {
            val += inp_bt[i] * wrow[i];
        }
        out[bt * OC + oc] = val;
    }
}

float *make_random_float(size_t n)
{
    float *p = (float *)malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) p[i] = ((float)rand() / RAND_MAX) * 2.0f - 1.0f;
    return p;
}

int main(int argc, char **argv)
{
    int B = 3, T = 61, C = 223, OC = 141;
    float *out = (float *)malloc((size_t)B * T * OC * sizeof(float));
    float *inp = make_random_float((size_t)B * T * C);
    float *weight = make_random_float((size_t)OC * C);
    float *bias = make_random_float(OC);

    float *d_out, *d_inp, *d_weight, *d_bias;
    cudaMalloc(&d_out, (size_t)B * T * OC * sizeof(float));
    cudaMalloc(&d_inp, (size_t)B * T * C * sizeof(float));
    cudaMalloc(&d_weight, (size_t)OC * C * sizeof(float));
    cudaMalloc(&d_bias, OC * sizeof(float));
    cudaMemcpy(d_inp, inp, (size_t)B * T * C * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_weight, weight, (size_t)OC * C * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_bias, bias, OC * sizeof(float), cudaMemcpyHostToDevice);

    int sqrt_block_size = 16;
    dim3 gridDim(CEIL_DIV(B * T, sqrt_block_size), CEIL_DIV(OC, sqrt_block_size));
    dim3 blockDim(sqrt_block_size, sqrt_block_size);
    matmul_forward_naive<<<gridDim, blockDim>>>(d_out, d_inp, d_weight, d_bias, B, T, C, OC);
    cudaMemcpy(out, d_out, (size_t)B * T * OC * sizeof(float), cudaMemcpyDeviceToHost);

    float ref = bias[7];
    for (int i = 0; i < C; i++) ref += inp[100 * C + i] * weight[7 * C + i];
    printf("out[100][7] = %f ref %f\n", out[100 * OC + 7], ref);

    cudaFree(d_out); cudaFree(d_inp); cudaFree(d_weight); cudaFree(d_bias);
    free(out); free(inp); free(weight); free(bias);
    return 0;
}
