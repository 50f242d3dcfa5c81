// launch: grid 1024 block 256
// expect: packed 8-element loads and stores of x, y in a grid-stride loop
#include <cuda_bf16.h>
#include <math.h>
#define GELU_SCALING_FACTOR sqrtf(2.0f / M_PI)
__device__ float gelu(float x) {
    float cube = 0.044715f * x * x * x;
    return 0.5f * x * (1.0f + tanhf(GELU_SCALING_FACTOR * (x + cube)));
}
__global__ void gelu_forward(__nv_bfloat16* y, const __nv_bfloat16* x, int n) {
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        y[i] = __float2bfloat16(gelu(__bfloat162float(x[i])));
    }
}
