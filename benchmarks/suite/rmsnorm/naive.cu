// RMS normalization, one thread per row.
#include <cuda_bf16.h>

typedef __nv_bfloat16 floatX;

__global__ void rmsnorm_forward(floatX* out, float* rstd, const floatX* inp, const floatX* weight, int N, int C) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < N) {
    const floatX* x = inp + (size_t)row * C;
    floatX* y = out + (size_t)row * C;
    float ss = 0.0f;
    for (int i = 0; i < C; i++) {
      float v = (float)x[i];
      ss += v * v;
    }
    float s = rsqrtf(ss / C + 1e-6f);
    for (int i = 0; i < C; i++) {
      y[i] = (floatX)((float)x[i] * s * (float)weight[i]);
    }
    rstd[row] = s;
  }
}
