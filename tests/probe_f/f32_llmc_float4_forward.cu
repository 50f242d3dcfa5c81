// style: llm.c-style matmul_forward variant with float4 loads along C (oc from threadIdx.x, one bt row per blockIdx.y), bias
// launch: grid cdiv(OC, 128), BT block 128
// sizes: BT=117 C=196 OC=251
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
#include <cassert>
#include <cuda_runtime.h>

// out is (B,T,OC), inp is (B,T,C), weight is (OC,C), bias is (OC); C % 4 == 0
__global__ void matmul_forward_kernel_vec4(float* out,
                                           const float* inp, const float* weight, const float* bias,
                                           int BT, int C, int OC) {
    int oc = blockIdx.x * blockDim.x + threadIdx.x;
    int bt = blockIdx.y;
    if (oc >= OC || bt >= BT) { return; }
    const float4* inp4 = reinterpret_cast<const float4*>(inp + bt * C);
    const float4* w4 = reinterpret_cast<const float4*>(weight + oc * C);
    float val = (bias != NULL) ? bias[oc] : 0.0f;
    for (int i = 0; i < C / 4; i++) {
        float4 a = inp4[i];
        float4 w = w4[i];
        val += a.x * w.x + a.y * w.y + a.z * w.z + a.w * w.w;
    }
    out[bt * OC + oc] = val;
}

void matmul_forward_vec4(float* out, const float* inp, const float* weight, const float* bias,
                         int B, int T, int C, int OC) {
    assert(C % 4 == 0);
    const int block_size = 128;
    dim3 gridDim((OC + block_size - 1) / block_size, B * T);
    matmul_forward_kernel_vec4<<<gridDim, block_size>>>(out, inp, weight, bias, B * T, C, OC);
}
