// style: llm.c-style packed qkv (B, T, 3C) with V at offset 2C, att (B, NH, T, T) after softmax, head from blockIdx.y and batch from blockIdx.z, (t, d) flattened on x, causal t2 <= t loop, host launcher
// launch: grid cdiv(T * C / NH, 64), NH, B block 64
// sizes: B=2 T=67 C=111 NH=3
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cuda_runtime.h>
#include <cstdio>

// out (B, T, C): out[b, t, h*hs + d] = sum_{t2 <= t} att[b, h, t, t2] * v[b, t2, h, d]
__global__ void attention_value_kernel(float *out, const float *att, const float *inp,
                                       int B, int T, int C, int NH)
{
    int hs = C / NH;
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int h = blockIdx.y;
    int b = blockIdx.z;
    if (idx >= T * hs) return;

    int t = idx / hs;
    int d = idx % hs;
    int C3 = C * 3;

    const float *att_bth = att + (size_t)b * NH * T * T + (size_t)h * T * T + (size_t)t * T;
    const float *v_base = inp + (size_t)b * T * C3 + 2 * C + h * hs + d;

    float val = 0.0f;
    for (int t2 = 0; t2 <= t; t2++) {
        val += att_bth[t2] * v_base[(size_t)t2 * C3];
    }
    out[(size_t)b * T * C + (size_t)t * C + h * hs + d] = val;
}

void attention_value(float *d_out, const float *d_att, const float *d_qkv,
                     int B, int T, int C, int NH)
{
    const int block_size = 64;
    int hs = C / NH;
    dim3 grid((T * hs + block_size - 1) / block_size, NH, B);
    attention_value_kernel<<<grid, block_size>>>(d_out, d_att, d_qkv, B, T, C, NH);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        fprintf(stderr, "attention_value launch failed: %s\n", cudaGetErrorString(err));
}

int main()
{
    const int B = 2, T = 67, C = 111, NH = 3;
    float *d_qkv, *d_att, *d_out;
    cudaMalloc(&d_qkv, sizeof(float) * B * T * 3 * C);
    cudaMalloc(&d_att, sizeof(float) * B * NH * T * T);
    cudaMalloc(&d_out, sizeof(float) * B * T * C);
    cudaMemset(d_qkv, 0, sizeof(float) * B * T * 3 * C);
    cudaMemset(d_att, 0, sizeof(float) * B * NH * T * T);
    attention_value(d_out, d_att, d_qkv, B, T, C, NH);
    cudaDeviceSynchronize();
    cudaFree(d_qkv); cudaFree(d_att); cudaFree(d_out);
    return 0;
}
