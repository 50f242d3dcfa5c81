// style: llm.c attention_query_key_kernel1-like, packed qkv (B, T, 3*NH*HD), head dim as a #define, one flat thread per (b, h, t, t2), host main
// launch: grid cdiv(B * NH * T * T, 256) block 256
// sizes: B=2 T=67 NH=3 scale=0.1581
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define HD 40

// preatt: (B, NH, T, T); inp: (B, T, 3*C) holding Q,K,V with C = NH*HD
__global__ void attention_query_key_kernel(float* preatt, const float* inp,
                                           int B, int T, int NH, float scale) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total_threads = B * NH * T * T;
    if (idx < total_threads) {
        int t2 = idx % T;
        int t = (idx / T) % T;
        int h = (idx / (T * T)) % NH;
        int b = idx / (NH * T * T);

        int C3 = NH * HD * 3;
        const float* query_t = inp + b * T * C3 + t * C3 + h * HD;
        const float* key_t2 = inp + b * T * C3 + t2 * C3 + h * HD + NH * HD; // +C because it's key

        float val = 0.0f;
        #pragma unroll
        for (int i = 0; i < HD; i++) {
            val += query_t[i] * key_t2[i];
        }
        preatt[idx] = val * scale;
    }
}

int main() {
    const int B = 2, T = 67, NH = 3;
    const float scale = 1.0f / sqrtf((float)HD);
    size_t n_inp = (size_t)B * T * 3 * NH * HD;
    size_t n_att = (size_t)B * NH * T * T;
    float* h_inp = (float*)malloc(n_inp * sizeof(float));
    for (size_t i = 0; i < n_inp; ++i) h_inp[i] = (float)rand() / RAND_MAX - 0.5f;
    float *d_inp, *d_att;
    cudaMalloc(&d_inp, n_inp * sizeof(float));
    cudaMalloc(&d_att, n_att * sizeof(float));
    cudaMemcpy(d_inp, h_inp, n_inp * sizeof(float), cudaMemcpyHostToDevice);
    const int block_size = 256;
    int num_blocks = (int)((n_att + block_size - 1) / block_size);
    attention_query_key_kernel<<<num_blocks, block_size>>>(d_att, d_inp, B, T, NH, scale);
    float first;
    cudaMemcpy(&first, d_att, sizeof(float), cudaMemcpyDeviceToHost);
    printf("preatt[0] = %f\n", first);
    cudaFree(d_inp); cudaFree(d_att); free(h_inp);
    return 0;
}
