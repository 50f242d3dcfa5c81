// GELU, one thread per element: the way it is usually first written.
#include <cuda_bf16.h>

typedef __nv_bfloat16 act_t;

__global__ void gelu_forward(act_t* y, const act_t* x, int n) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) {
    float v = __bfloat162float(x[idx]);
    float inner = 0.7978845608f * (v + 0.044715f * v * v * v);
    y[idx] = __float2bfloat16(0.5f * v * (1.0f + tanhf(inner)));
  }
}
