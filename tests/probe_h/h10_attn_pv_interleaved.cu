// style: GPT-2 style attention output O = P.V where P is (B, H, T, T) but V and O use the interleaved (B, T, H, D) layout of the fused qkv buffer
// launch: grid cdiv(D, 32), cdiv(T, 8), B * H block 32, 8
// sizes: B=2 T=187 H=3 D=67
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library

// P   : (B, H, T, T)  attention probabilities, row t sums to 1
// V   : (B, T, H, D)
// out : (B, T, H, D)
// out[b, t, h, d] = sum_s P[b, h, t, s] * V[b, s, h, d]
__global__ void attention_pv_kernel(const float *P, const float *V, float *out,
                                    int B, int T, int H, int D)
{
    int d = blockIdx.x * blockDim.x + threadIdx.x;
    int t = blockIdx.y * blockDim.y + threadIdx.y;
    int b = blockIdx.z / H;
    int h = blockIdx.z % H;
    if (b >= B || t >= T || d >= D) return;

    const float *p_row = P + (((size_t)b * H + h) * T + t) * T;
    const float *v_col = V + (size_t)b * T * H * D + (size_t)h * D + d;
    const size_t v_stride = (size_t)H * D;       // step from s to s+1 in V

    float acc = 0.0f;
    for (int s = 0; s < T; s++) {
        acc += p_row[s] * v_col[s * v_stride];
    }
    out[(((size_t)b * T + t) * H + h) * D + d] = acc;
}
