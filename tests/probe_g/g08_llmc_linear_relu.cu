// style: llm.c matmul_forward kernel1 flavour: out[bt][oc] = inp[bt] . weight[oc] + bias[oc], optional ReLU flag; bt on threadIdx.x (uncoalesced out)
// launch: grid cdiv(BT, 8), cdiv(OC, 8) block 8, 8
// sizes: BT=187 C=223 OC=141 use_relu=1
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce|matmul-library
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

void cudaCheck(cudaError_t error, const char *file, int line) {
    if (error != cudaSuccess) {
        printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cudaCheck(err, __FILE__, __LINE__))

int ceil_div(int a, int b) { return (a + b - 1) / b; }

__global__ void linear_forward_kernel(float* out,
                                      const float* inp, const float* weight, const float* bias,
                                      int BT, int C, int OC, int use_relu) {
    // out is (B,T,OC). OC is short for "output channels", e.g. OC = 4 * C
    // inp is (B,T,C), weight is (OC, C), bias is (OC)
    int bt = blockIdx.x * blockDim.x + threadIdx.x;
    int oc = blockIdx.y * blockDim.y + threadIdx.y;
    if (bt < BT && oc < OC) {
        float val = (bias != NULL) ? bias[oc] : 0.0f;
        const float* wrow = weight + oc * C;
        const float* inp_bt = inp + bt * C;
        for (int i = 0; i < C; i++) {
            val += inp_bt[i] * wrow[i];
        }
        if (use_relu) val = fmaxf(val, 0.0f);
        out[bt * OC + oc] = val;
    }
}

void linear_forward(float* out, const float* inp, const float* weight, const float* bias,
                    int BT, int C, int OC, int use_relu, int sqrt_block_size) {
    dim3 gridDim(ceil_div(BT, sqrt_block_size), ceil_div(OC, sqrt_block_size));
    dim3 blockDim(sqrt_block_size, sqrt_block_size);
    linear_forward_kernel<<<gridDim, blockDim>>>(out, inp, weight, bias, BT, C, OC, use_relu);
    cudaCheck(cudaGetLastError());
}

float* make_random_float(size_t n) {
    float* arr = (float*)malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) arr[i] = ((float)rand() / RAND_MAX) * 2.0f - 1.0f;
    return arr;
}

int main() {
    int B = 11, T = 17, C = 223, OC = 141;
    int BT = B * T;
    float* inp = make_random_float(BT * C);
    float* weight = make_random_float(OC * C);
    float* bias = make_random_float(OC);
    float* out = (float*)malloc(BT * OC * sizeof(float));

    float *d_out, *d_inp, *d_weight, *d_bias;
    cudaCheck(cudaMalloc(&d_out, BT * OC * sizeof(float)));
    cudaCheck(cudaMalloc(&d_inp, BT * C * sizeof(float)));
    cudaCheck(cudaMalloc(&d_weight, OC * C * sizeof(float)));
    cudaCheck(cudaMalloc(&d_bias, OC * sizeof(float)));
    cudaCheck(cudaMemcpy(d_inp, inp, BT * C * sizeof(float), cudaMemcpyHostToDevice));
    cudaCheck(cudaMemcpy(d_weight, weight, OC * C * sizeof(float), cudaMemcpyHostToDevice));
    cudaCheck(cudaMemcpy(d_bias, bias, OC * sizeof(float), cudaMemcpyHostToDevice));

    linear_forward(d_out, d_inp, d_weight, d_bias, BT, C, OC, 1, 8);
    cudaCheck(cudaMemcpy(out, d_out, BT * OC * sizeof(float), cudaMemcpyDeviceToHost));
    printf("out[0] = %f\n", out[0]);

    free(inp); free(weight); free(bias); free(out);
    cudaCheck(cudaFree(d_out)); cudaCheck(cudaFree(d_inp));
    cudaCheck(cudaFree(d_weight)); cudaCheck(cudaFree(d_bias));
    return 0;
}
