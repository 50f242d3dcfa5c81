// style: "attention from scratch" blog kernel, O = P V with P (B, NH, T, T) and V (B, NH, T, HS), 2D threads per head-slab on blockIdx.z
// launch: grid cdiv(HS, 32), cdiv(T, 8), B * NH block 32, 8
// sizes: B=2 NH=3 T=67 HS=40
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cuda_runtime.h>

__global__ void attn_apply_values(const float *__restrict__ P,
                                  const float *__restrict__ V,
                                  float *__restrict__ O,
                                  int B, int NH, int T, int HS)
{
    int d = blockIdx.x * blockDim.x + threadIdx.x;
    int t = blockIdx.y * blockDim.y + threadIdx.y;
    int bh = blockIdx.z;
    if (bh >= B * NH || t >= T || d >= HS)
        return;

    const float *p_row = P + ((long long)bh * T + t) * T;
    const float *v_head = V + (long long)bh * T * HS;
    float o = 0.f;
    for (int s = 0; s < T; ++s)
        o += p_row[s] * v_head[s * HS + d];
    O[((long long)bh * T + t) * HS + d] = o;
}
