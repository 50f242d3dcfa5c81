#include "bad_header.cuh"

__global__ void use(float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = twice(out[i]);
}
