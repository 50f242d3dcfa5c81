// launch: grid cdiv(B*NH*T*HS, 256) block 256
// sizes: B=2 NH=6 T=120 HS=40
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// causal y = att @ v with q,k,v already permuted to (B,NH,T,HS), one output element per thread (after llm.c attention_forward att@V step)
#include <cuda_runtime.h>

__global__ void attention_value_kernel(float* __restrict__ out, const float* __restrict__ att,
                                       const float* __restrict__ v,
                                       int B, int NH, int T, int HS) {
    // att is (B, NH, T, T), v is (B, NH, T, HS), out is (B, NH, T, HS)
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * NH * T * HS) return;

    int i = idx % HS;
    int t = (idx / HS) % T;
    int bh = idx / (T * HS);          // fused (b, nh) index

    const float* att_row = att + (size_t)bh * T * T + (size_t)t * T;
    const float* v_bh = v + (size_t)bh * T * HS;

    float acc = 0.0f;
    // causal: only keys t2 <= t contribute
    for (int t2 = 0; t2 <= t; t2++) {
        acc += att_row[t2] * v_bh[t2 * HS + i];
    }
    out[idx] = acc;
}
