// style: from-scratch transformer inference repo (llm.c-like); attention scores S[h][i][j] = scale * sum_d Q[h][i][d] * K[h][j][d] (Q.K^T per head), head on blockIdx.z, causal mask writes -INFINITY for j > i without computing the dot product, head_dim loop over d, host main with cudaMalloc/cudaMemcpy and scale = 1/sqrtf(D)
// launch: grid cdiv(L, 16), cdiv(L, 16), H block 16, 16, 1
// sizes: H=3 L=67 D=45 scale=0.149
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

__global__ void attn_scores_causal(const float *Q, const float *K, float *S,
                                   int H, int L, int D, float scale)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;   // key position
    int i = blockIdx.y * blockDim.y + threadIdx.y;   // query position
    int h = blockIdx.z;                              // head
    if (h >= H || i >= L || j >= L) return;

    const float *q = Q + ((size_t)h * L + i) * D;
    const float *k = K + ((size_t)h * L + j) * D;
    float *s = S + ((size_t)h * L + i) * L;

    if (j > i) {
        s[j] = -INFINITY;
        return;
    }
    float dot = 0.0f;
    for (int d = 0; d < D; d++) {
        dot += q[d] * k[d];
    }
    s[j] = dot * scale;
}

int main()
{
    const int H = 3, L = 67, D = 45;
    const float scale = 1.0f / sqrtf((float)D);
    size_t qk_elems = (size_t)H * L * D;
    size_t s_elems = (size_t)H * L * L;

    float *hQ = (float *)malloc(qk_elems * sizeof(float));
    float *hK = (float *)malloc(qk_elems * sizeof(float));
    float *hS = (float *)malloc(s_elems * sizeof(float));
    for (size_t t = 0; t < qk_elems; t++) {
        hQ[t] = sinf(0.1f * (float)t);
        hK[t] = cosf(0.07f * (float)t);
    }

    float *dQ, *dK, *dS;
    cudaMalloc(&dQ, qk_elems * sizeof(float));
    cudaMalloc(&dK, qk_elems * sizeof(float));
    cudaMalloc(&dS, s_elems * sizeof(float));
    cudaMemcpy(dQ, hQ, qk_elems * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dK, hK, qk_elems * sizeof(float), cudaMemcpyHostToDevice);

    dim3 block(16, 16, 1);
    dim3 grid((L + 15) / 16, (L + 15) / 16, H);
    attn_scores_causal<<<grid, block>>>(dQ, dK, dS, H, L, D, scale);
    cudaMemcpy(hS, dS, s_elems * sizeof(float), cudaMemcpyDeviceToHost);

    printf("S[0][0][0]=%f S[0][0][1]=%f S[2][66][66]=%f\n",
           hS[0], hS[1], hS[s_elems - 1]);
    cudaFree(dQ); cudaFree(dK); cudaFree(dS);
    free(hQ); free(hK); free(hS);
    return 0;
}
