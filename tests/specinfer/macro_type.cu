// The element type as a macro (DTYPE) selected by #ifdef, half precision.
// expect: y [n] out; x [n] in; dtype x float16
#include <cuda_fp16.h>
#define USE_HALF
#ifdef USE_HALF
#define DTYPE __half
#else
#define DTYPE float
#endif

__global__ void half_relu(DTYPE* y, const DTYPE* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = __half2float(x[i]);
    y[i] = __float2half(v > 0.0f ? v : 0.0f);
  }
}
