// style: HuggingFace-BERT-style encoder attention scores written by hand: Q and K in (B, T, NH, HS) "bthd" layout, scale passed in as a float, an int attention_mask[B*T] from the tokenizer where padded keys get -INFINITY; flat x index over (i, j) of the T x T score matrix, head from blockIdx.y, batch from blockIdx.z
// launch: grid cdiv(T * T, 256), NH, B block 256
// sizes: B=2 NH=4 T=57 HS=27 scale=0.125
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>
#include <math.h>

// scores[b][h][i][j] = scale * dot(Q[b,i,h,:], K[b,j,h,:])   or -inf where mask[b][j] == 0
__global__ void bert_attention_scores(const float *Q, const float *K, const int *attention_mask,
                                      float *scores, float scale,
                                      int B, int NH, int T, int HS)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int h = blockIdx.y;
    int b = blockIdx.z;
    if (idx >= T * T) return;

    int i = idx / T;   // query
    int j = idx % T;   // key
    float *out = scores + (((size_t)b * NH + h) * T + i) * T + j;

    if (attention_mask[b * T + j] == 0) {
        *out = -INFINITY;
        return;
    }

    const float *q = Q + (((size_t)b * T + i) * NH + h) * HS;
    const float *k = K + (((size_t)b * T + j) * NH + h) * HS;
    float dot = 0.0f;
    for (int d = 0; d < HS; ++d)
        dot += q[d] * k[d];
    *out = dot * scale;
}

void launch_scores(const float *Q, const float *K, const int *mask, float *scores,
                   int B, int NH, int T, int HS, cudaStream_t stream)
{
    float scale = 1.0f / sqrtf((float)HS);
    dim3 block(256);
    dim3 grid((T * T + 255) / 256, NH, B);
    bert_attention_scores<<<grid, block, 0, stream>>>(Q, K, mask, scores, scale, B, NH, T, HS);
}
