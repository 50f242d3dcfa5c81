// style: llm.c matmul_backward (dev/cuda naive port); dweight = dout^T . inp contracted over the flattened B*T axis, 1-D flat thread index split with idx / C and idx % C, gradients accumulated with +=, (B,T,C)/(OC,C) shape comments; dinp = dout . weight kernel follows
// launch: grid cdiv(OC*C, 256) block 256
// sizes: B=3 T=23 C=45 OC=67
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

// dout is (B,T,OC), inp is (B,T,C), dweight is (OC,C)
__global__ void matmul_backward_dweight_kernel1(float* dweight,
                                                const float* dout, const float* inp,
                                                int B, int T, int C, int OC) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= OC * C) { return; }
    int o = idx / C;
    int i = idx % C;
    float sum = 0.0f;
    for (int bt = 0; bt < B * T; bt++) {
        const float* dout_bt = dout + bt * OC;
        const float* inp_bt = inp + bt * C;
        sum += dout_bt[o] * inp_bt[i];
    }
    dweight[o * C + i] += sum;
}

// dinp is (B,T,C), weight is (OC,C)
__global__ void matmul_backward_dinp_kernel1(float* dinp,
                                             const float* dout, const float* weight,
                                             int B, int T, int C, int OC) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * T * C) { return; }
    int bt = idx / C;
    int i = idx % C;
    const float* dout_bt = dout + bt * OC;
    float sum = 0.0f;
    for (int o = 0; o < OC; o++) {
        sum += dout_bt[o] * weight[o * C + i];
    }
    dinp[bt * C + i] += sum;
}

float* make_random_float(size_t n) {
    float* a = (float*)malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) { a[i] = ((float)rand() / RAND_MAX) * 2.0f - 1.0f; }
    return a;
}

int main(int argc, char** argv) {
    srand(0);
    int B = 3, T = 23, C = 45, OC = 67;
    float* dout = make_random_float((size_t)B * T * OC);
    float* inp = make_random_float((size_t)B * T * C);
    float* weight = make_random_float((size_t)OC * C);

    float *d_dout, *d_inp, *d_weight, *d_dweight, *d_dinp;
    cudaMalloc(&d_dout, (size_t)B * T * OC * sizeof(float));
    cudaMalloc(&d_inp, (size_t)B * T * C * sizeof(float));
    cudaMalloc(&d_weight, (size_t)OC * C * sizeof(float));
    cudaMalloc(&d_dweight, (size_t)OC * C * sizeof(float));
    cudaMalloc(&d_dinp, (size_t)B * T * C * sizeof(float));
    cudaMemcpy(d_dout, dout, (size_t)B * T * OC * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_inp, inp, (size_t)B * T * C * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_weight, weight, (size_t)OC * C * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_dweight, 0, (size_t)OC * C * sizeof(float));
    cudaMemset(d_dinp, 0, (size_t)B * T * C * sizeof(float));

    int block_size = 256;
    int grid_size = (OC * C + block_size - 1) / block_size;
    matmul_backward_dweight_kernel1<<<grid_size, block_size>>>(d_dweight, d_dout, d_inp, B, T, C, OC);
    grid_size = (B * T * C + block_size - 1) / block_size;
    matmul_backward_dinp_kernel1<<<grid_size, block_size>>>(d_dinp, d_dout, d_weight, B, T, C, OC);
    cudaDeviceSynchronize();

    float* dweight = (float*)malloc((size_t)OC * C * sizeof(float));
    cudaMemcpy(dweight, d_dweight, (size_t)OC * C * sizeof(float), cudaMemcpyDeviceToHost);
    printf("dweight[0] = %f\n", dweight[0]);

    cudaFree(d_dout); cudaFree(d_inp); cudaFree(d_weight); cudaFree(d_dweight); cudaFree(d_dinp);
    free(dout); free(inp); free(weight); free(dweight);
    return 0;
}
