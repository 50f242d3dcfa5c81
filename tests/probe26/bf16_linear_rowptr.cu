// launch: grid cdiv(OC, 64), BT block 64
// sizes: BT=256 C=384 OC=512
// expect: matmul-tiles|matmul-wmma|matmul-library
// a bf16 linear layer without bias through row pointers, fp32 sums
#include <cuda_bf16.h>
typedef __nv_bfloat16 floatX;
__global__ void linear_bf16(floatX* out, const floatX* inp, const floatX* weight, int BT, int C, int OC) {
  int bt = blockIdx.y;
  int oc = blockIdx.x * blockDim.x + threadIdx.x;
  if (oc < OC) {
    const floatX* x = inp + bt * C;
    const floatX* w = weight + oc * C;
    float val = 0.0f;
    for (int i = 0; i < C; i++) val += (float)x[i] * (float)w[i];
    out[bt * OC + oc] = (floatX)val;
  }
}
