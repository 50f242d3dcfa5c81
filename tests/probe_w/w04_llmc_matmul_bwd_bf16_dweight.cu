// style: llm.c matmul_backward split into naive dinp/dweight kernels with typedef __nv_bfloat16 floatX and float accumulation; target dweight += dout^T @ inp (transposed first operand, reduction over BT rows) read-modify-written into the bf16 gradient buffer in global memory, dwrow pointer spelling
// kernel: matmul_backward_dweight_kernel
// launch: grid cdiv(C, 32), cdiv(OC, 8) block 32, 8
// sizes: BT=75 C=57 OC=99
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>
#include <cuda_bf16.h>

typedef __nv_bfloat16 floatX;

// dinp (BT, C) += dout (BT, OC) @ weight (OC, C)
__global__ void matmul_backward_dinp_kernel(floatX* dinp, const floatX* dout, const floatX* weight,
                                            int BT, int C, int OC) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int bt = blockIdx.y * blockDim.y + threadIdx.y;
    if (bt >= BT || c >= C) { return; }
    const floatX* dout_bt = dout + bt * OC;
    float sum = 0.0f;
    for (int o = 0; o < OC; o++) {
        sum += (float)dout_bt[o] * (float)weight[o * C + c];
    }
    dinp[bt * C + c] = (floatX)((float)dinp[bt * C + c] + sum);
}

// dweight (OC, C) += dout (BT, OC)^T @ inp (BT, C)
__global__ void matmul_backward_dweight_kernel(floatX* dweight, const floatX* dout, const floatX* inp,
                                               int BT, int C, int OC) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int o = blockIdx.y * blockDim.y + threadIdx.y;
    if (o >= OC || i >= C) { return; }
    floatX* dwrow = dweight + o * C;
    float sum = 0.0f;
    for (int bt = 0; bt < BT; bt++) {
        const floatX* inp_bt = inp + bt * C;
        float d = (float)dout[bt * OC + o];
        sum += (float)inp_bt[i] * d;
    }
    dwrow[i] = (floatX)((float)dwrow[i] + sum);
}

void matmul_backward(floatX* dinp, floatX* dweight,
                     const floatX* dout, const floatX* inp, const floatX* weight,
                     int B, int T, int C, int OC) {
    int BT = B * T;
    dim3 block(32, 8);
    dim3 grid_dinp((C + 31) / 32, (BT + 7) / 8);
    matmul_backward_dinp_kernel<<<grid_dinp, block>>>(dinp, dout, weight, BT, C, OC);
    dim3 grid_dw((C + 31) / 32, (OC + 7) / 8);
    matmul_backward_dweight_kernel<<<grid_dw, block>>>(dweight, dout, inp, BT, C, OC);
}
