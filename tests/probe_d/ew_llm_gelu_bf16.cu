// launch: grid cdiv(N, 256) block 256
// sizes: N=300000
// expect: elementwise
// llm.c GELU forward (tanh approximation) on __nv_bfloat16 activations, one scalar element per thread
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <math.h>

typedef __nv_bfloat16 floatX;

#define GELU_SCALING_FACTOR sqrtf(2.0f / M_PI)

__global__ void gelu_forward_kernel(floatX* out, const floatX* inp, int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        float xi = (float)inp[i];
        float cube = 0.044715f * xi * xi * xi;
        out[i] = (floatX)(0.5f * xi * (1.0f + tanhf(GELU_SCALING_FACTOR * (xi + cube))));
    }
}

void gelu_forward(floatX* out, const floatX* inp, int N) {
    const int block_size = 256;
    const int grid_size = (N + block_size - 1) / block_size;
    gelu_forward_kernel<<<grid_size, block_size>>>(out, inp, N);
}
