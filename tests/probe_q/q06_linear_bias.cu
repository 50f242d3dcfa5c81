// style: llm.c matmul_forward_kernel1 spelled as an nn.Linear forward; (BT, C) input, (OC, C) weight, optional bias checked against NULL, oc on threadIdx.x and bt on threadIdx.y, per-thread row pointers inp_bt / wrow
// launch: grid cdiv(OC, 32), cdiv(BT, 8) block 32, 8
// sizes: BT=77 C=45 OC=131
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstddef>

// out (BT, OC) = inp (BT, C) @ weight(OC, C)^T + bias (OC)
__global__ void linear_forward_kernel(float* out,
                                      const float* inp, const float* weight, const float* bias,
                                      int BT, int C, int OC) {
    int oc = blockIdx.x * blockDim.x + threadIdx.x;
    int bt = blockIdx.y * blockDim.y + threadIdx.y;
    if (bt < BT && oc < OC) {
        float val = (bias != NULL) ? bias[oc] : 0.0f;
        const float* inp_bt = inp + bt * C;
        const float* wrow = weight + oc * C;
        for (int i = 0; i < C; i++) {
            val += inp_bt[i] * wrow[i];
        }
        out[bt * OC + oc] = val;
    }
}
