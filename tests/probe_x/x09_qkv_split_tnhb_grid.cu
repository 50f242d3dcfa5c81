// style: llm.c-style attention prologue (inp is (B, T, 3, NH, HS); q, k, v are (B, NH, T, HS)) but launched as one block per (t, h, b) from a 3-D grid (blockIdx.x=t, .y=h, .z=b) with a threadIdx.x stride loop over the head dimension, size_t row offsets; every HS-long row moves whole; host main with CPU check
// launch: grid T, NH, B block 32
// sizes: B=3 T=37 NH=5 HS=23
// expect: transpose-tile|gather
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define cudaCheck(err) (cudaCheck_((err), __FILE__, __LINE__))
static void cudaCheck_(cudaError_t error, const char *file, int line) {
    if (error != cudaSuccess) {
        printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}

__global__ void split_qkv_kernel(float* q, float* k, float* v,
                                 const float* inp,
                                 int B, int T, int NH, int HS) {
    // okay so now, this kernel wants Q,K,V to all be of shape (B, NH, T, HS)
    // but instead, we have a single tensor QKV (inp) of shape (B, T, 3, NH, HS)
    int t = blockIdx.x;
    int nh_ = blockIdx.y;
    int b = blockIdx.z;
    int C = NH * HS;

    // Q[b][nh_][t][d_] = inp[b][t][0][nh_][d_]
    const float* inp_row = inp + ((size_t)b * T + t) * 3 * C + nh_ * HS;
    size_t out_row = (((size_t)b * NH + nh_) * T + t) * HS;

    for (int d_ = threadIdx.x; d_ < HS; d_ += blockDim.x) {
        q[out_row + d_] = inp_row[d_];
        k[out_row + d_] = inp_row[C + d_];
        v[out_row + d_] = inp_row[2 * C + d_];
    }
}

int main(int argc, char** argv) {
    int B = 3, T = 37, NH = 5, HS = 23;
    int C = NH * HS;
    size_t n_inp = (size_t)B * T * 3 * C;
    size_t n_out = (size_t)B * NH * T * HS;

    float* inp = (float*)malloc(n_inp * sizeof(float));
    float* q = (float*)malloc(n_out * sizeof(float));
    float* k = (float*)malloc(n_out * sizeof(float));
    float* v = (float*)malloc(n_out * sizeof(float));
    for (size_t i = 0; i < n_inp; i++) inp[i] = (float)((i * 2654435761u) % 1000) / 100.0f;

    float *d_inp, *d_q, *d_k, *d_v;
    cudaCheck(cudaMalloc(&d_inp, n_inp * sizeof(float)));
    cudaCheck(cudaMalloc(&d_q, n_out * sizeof(float)));
    cudaCheck(cudaMalloc(&d_k, n_out * sizeof(float)));
    cudaCheck(cudaMalloc(&d_v, n_out * sizeof(float)));
    cudaCheck(cudaMemcpy(d_inp, inp, n_inp * sizeof(float), cudaMemcpyHostToDevice));

    dim3 grid(T, NH, B);
    split_qkv_kernel<<<grid, 32>>>(d_q, d_k, d_v, d_inp, B, T, NH, HS);
    cudaCheck(cudaGetLastError());

    cudaCheck(cudaMemcpy(q, d_q, n_out * sizeof(float), cudaMemcpyDeviceToHost));
    cudaCheck(cudaMemcpy(k, d_k, n_out * sizeof(float), cudaMemcpyDeviceToHost));
    cudaCheck(cudaMemcpy(v, d_v, n_out * sizeof(float), cudaMemcpyDeviceToHost));

    int bad = 0;
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++)
            for (int t = 0; t < T; t++)
                for (int d = 0; d < HS; d++) {
                    size_t o = (((size_t)b * NH + h) * T + t) * HS + d;
                    size_t i0 = (((size_t)b * T + t) * 3 + 0) * C + h * HS + d;
                    if (q[o] != inp[i0] || k[o] != inp[i0 + C] || v[o] != inp[i0 + 2 * C]) bad++;
                }
    printf("%s (%d mismatches)\n", bad ? "FAIL" : "PASS", bad);

    cudaFree(d_inp); cudaFree(d_q); cudaFree(d_k); cudaFree(d_v);
    free(inp); free(q); free(k); free(v);
    return bad != 0;
}
