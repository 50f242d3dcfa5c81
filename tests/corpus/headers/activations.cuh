// corpus header: element-wise activations defined in a header, instantiated by launch_activations.cu
#pragma once
#include <cuda_fp16.h>

template <typename T>
__global__ void gelu(const T* __restrict__ x, T* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = static_cast<float>(x[i]);
        y[i] = static_cast<T>(0.5f * v * (1.0 + tanhf(0.7978845608f * (v + 0.044715f * v * v * v))));  // expect: fp64-in-float-kernel
    }
}

__global__ void silu_inplace(float* __restrict__ x, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float v = x[i];
        x[i] = v / (1.0f + __expf(-v));  // expect: slow-math-in-loop
    }
}

template <typename T>
__global__ void unused_template(T* x) { x[threadIdx.x] = x[threadIdx.x] * 2.0; }
