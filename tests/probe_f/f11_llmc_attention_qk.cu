// style: llm.c dev/cuda attention_forward kernel 1: attention_query_key_kernel1 (1-D idx split by / and %, causal, per head)
// launch: grid cdiv(B * NH * T * T, 256) block 256
// sizes: B=2 T=77 C=204 NH=3
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))

__global__ void attention_query_key_kernel1(float* preatt, const float* inp,
                                            int B, int T, int C, int NH) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total_threads = B * NH * T * T;

    if (idx < total_threads) {
        int t2 = idx % T;
        int t = (idx / T) % T;
        if (t2 > t) { return; } // autoregressive mask
        int h = (idx / (T * T)) % NH;
        int b = idx / (NH * T * T);

        int C3 = C*3;
        int hs = C / NH; // head size
        const float* query_t = inp + b * T * C3 + t * C3 + h * hs;
        const float* key_t2 = inp + b * T * C3 + t2 * C3 + h * hs + C; // +C because it's key

        // (query_t) dot (key_t2)
        float val = 0.0f;
        for (int i = 0; i < hs; i++) {
            val += query_t[i] * key_t2[i];
        }
        val *= 1.0 / sqrtf(hs);

        preatt[idx] = val;
    }
}

void attention_query_key1(float* preatt, const float* inp, int B, int T, int C, int NH,
                          const int block_size) {
    int total_threads = B * NH * T * T;
    int num_blocks = CEIL_DIV(total_threads, block_size);
    attention_query_key_kernel1<<<num_blocks, block_size>>>(preatt, inp, B, T, C, NH);
}

int main() {
    int B = 2, T = 77, C = 204, NH = 3;
    float *d_preatt, *d_inp;
    cudaMalloc(&d_preatt, B * NH * T * T * sizeof(float));
    cudaMalloc(&d_inp, B * T * 3 * C * sizeof(float));
    cudaMemset(d_inp, 0, B * T * 3 * C * sizeof(float));
    attention_query_key1(d_preatt, d_inp, B, T, C, NH, 256);
    printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    cudaFree(d_preatt); cudaFree(d_inp);
    return 0;
}
