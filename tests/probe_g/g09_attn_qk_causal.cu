// style: naive multi-head attention scores S = scale * Q K^T per (batch, head) with a causal mask; q/k in (B, T, NH, hs) layout, z = b*NH + h
// launch: grid cdiv(T, 16), cdiv(T, 16), B*NH block 16, 16
// sizes: B=3 T=77 NH=5 hs=40 scale=0.158113883
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

__global__ void attn_scores_causal(const float* q, const float* k, float* att,
                                   int B, int T, int NH, int hs, float scale)
{
    int t2 = blockIdx.x * blockDim.x + threadIdx.x;   // key position
    int t  = blockIdx.y * blockDim.y + threadIdx.y;   // query position
    int bh = blockIdx.z;
    int b = bh / NH;
    int h = bh % NH;
    if (t >= T || t2 >= T || b >= B) return;

    float* att_row = att + ((size_t)bh * T + t) * T;
    if (t2 > t) {
        att_row[t2] = -INFINITY;   // causal: can't attend to the future
        return;
    }
    const float* qt = q + ((size_t)(b * T + t) * NH + h) * hs;
    const float* kt = k + ((size_t)(b * T + t2) * NH + h) * hs;
    float dot = 0.0f;
    for (int d = 0; d < hs; d++) {
        dot += qt[d] * kt[d];
    }
    att_row[t2] = dot * scale;
}

int main()
{
    const int B = 3, T = 77, NH = 5, hs = 40;
    const float scale = 1.0f / sqrtf((float)hs);
    size_t nq = (size_t)B * T * NH * hs;
    size_t natt = (size_t)B * NH * T * T;
    float *hq = (float*)malloc(nq * sizeof(float));
    float *hk = (float*)malloc(nq * sizeof(float));
    float *hatt = (float*)malloc(natt * sizeof(float));
    for (size_t i = 0; i < nq; i++) { hq[i] = (rand() % 100) / 100.f; hk[i] = (rand() % 100) / 100.f; }

    float *dq, *dk, *datt;
    cudaMalloc(&dq, nq * sizeof(float));
    cudaMalloc(&dk, nq * sizeof(float));
    cudaMalloc(&datt, natt * sizeof(float));
    cudaMemcpy(dq, hq, nq * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dk, hk, nq * sizeof(float), cudaMemcpyHostToDevice);

    dim3 threads(16, 16);
    dim3 blocks((T + 15) / 16, (T + 15) / 16, B * NH);
    attn_scores_causal<<<blocks, threads>>>(dq, dk, datt, B, T, NH, hs, scale);
    cudaMemcpy(hatt, datt, natt * sizeof(float), cudaMemcpyDeviceToHost);
    printf("att[0] = %f, att[1] = %f\n", hatt[0], hatt[1]);

    cudaFree(dq); cudaFree(dk); cudaFree(datt);
    free(hq); free(hk); free(hatt);
    return 0;
}
