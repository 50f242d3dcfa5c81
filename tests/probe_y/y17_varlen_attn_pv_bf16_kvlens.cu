// style: FasterTransformer / inference-engine style "unfused" attention output O = P V for padded variable-length batches: bf16 probabilities P (B, NH, Tq, Tk) and bf16 V in token-major (B, Tk, NH, HS), per-sequence key lengths kv_lens[b] (clamped to [0, Tk]) bound the contraction so padded keys are skipped, float accumulator, bf16 output (B, Tq, NH, HS) with __float2bfloat16; head-dim d on threadIdx.x, query t on y, b*NH + h on blockIdx.z
// launch: grid cdiv(HS, 32), cdiv(Tq, 8), B*NH block 32, 8
// sizes: B=2 NH=3 Tq=29 Tk=53 HS=37
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_bf16.h>

typedef __nv_bfloat16 bf16;

__global__ void attn_pv_varlen_kernel(const bf16* __restrict__ probs,
                                      const bf16* __restrict__ v,
                                      const int* __restrict__ kv_lens,
                                      bf16* __restrict__ out,
                                      int B, int NH, int Tq, int Tk, int HS)
{
    const int d  = blockIdx.x * blockDim.x + threadIdx.x;
    const int t  = blockIdx.y * blockDim.y + threadIdx.y;
    const int bh = blockIdx.z;
    if (bh >= B * NH || t >= Tq || d >= HS) return;

    const int b = bh / NH;
    const int h = bh % NH;

    int len = kv_lens[b];
    len = len < 0 ? 0 : (len > Tk ? Tk : len);

    const bf16* p_row = probs + ((size_t)bh * Tq + t) * Tk;
    const bf16* v_bh  = v + (size_t)b * Tk * NH * HS + (size_t)h * HS + d;
    const size_t v_stride = (size_t)NH * HS;   // next key token

    float acc = 0.f;
    for (int s = 0; s < len; ++s) {
        acc += __bfloat162float(p_row[s]) * __bfloat162float(v_bh[s * v_stride]);
    }
    out[(((size_t)b * Tq + t) * NH + h) * HS + d] = __float2bfloat16(acc);
}
