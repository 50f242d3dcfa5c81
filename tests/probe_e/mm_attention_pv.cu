// style: naive attention tutorial, O = P * V per (batch*head) on blockIdx.z, layout (B*H, N, d)
// launch: grid cdiv(d, 16), cdiv(N, 16), BH block 16, 16
// sizes: BH=6 N=97 d=40
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
#include <cuda_runtime.h>

__global__ void attn_pv_kernel(const float* P,   // [BH, N, N] softmax probabilities
                               const float* V,   // [BH, N, d]
                               float* O,         // [BH, N, d]
                               int BH, int N, int d)
{
    int bh = blockIdx.z;
    int i  = blockIdx.y * blockDim.y + threadIdx.y;   // query index
    int j  = blockIdx.x * blockDim.x + threadIdx.x;   // head-dim index
    if (bh >= BH || i >= N || j >= d) return;

    const float* p = P + (size_t)bh * N * N + (size_t)i * N;
    const float* v = V + (size_t)bh * N * d;
    float acc = 0.f;
    for (int k = 0; k < N; ++k)
        acc += p[k] * v[k * d + j];
    O[(size_t)bh * N * d + (size_t)i * d + j] = acc;
}
