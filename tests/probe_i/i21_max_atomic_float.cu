// style: Stack Overflow "atomicMax for float" trick (atomicMax on __float_as_int for non-negative, atomicMin on __float_as_uint for negative) after a per-block fmaxf shared-memory tree
// launch: grid cdiv(n, 256) block 256
// sizes: n=77777
// expect: block-tree|block-atomic
#include <stdio.h>
#include <stdlib.h>
#include <float.h>
#include <cuda_runtime.h>

#define TPB 256

__device__ __forceinline__ float atomicMaxFloat(float *addr, float value)
{
    float old;
    old = (value >= 0) ? __int_as_float(atomicMax((int *)addr, __float_as_int(value)))
                       : __uint_as_float(atomicMin((unsigned int *)addr, __float_as_uint(value)));
    return old;
}

__global__ void max_reduce(const float *d_array, float *d_max, int n)
{
    __shared__ float cache[TPB];

    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x;

    cache[t] = (gid < n) ? d_array[gid] : -FLT_MAX;
    __syncthreads();

    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            cache[t] = fmaxf(cache[t], cache[t + s]);
        __syncthreads();
    }

    if (t == 0)
        atomicMaxFloat(d_max, cache[0]);
}

int main()
{
    const int n = 77777;
    float *h = (float *)malloc(n * sizeof(float));
    float ref = -FLT_MAX;
    for (int i = 0; i < n; i++) {
        h[i] = (float)(rand() % 20001 - 10000) / 7.0f;
        if (h[i] > ref) ref = h[i];
    }

    float *d_array, *d_max;
    cudaMalloc((void **)&d_array, n * sizeof(float));
    cudaMalloc((void **)&d_max, sizeof(float));
    cudaMemcpy(d_array, h, n * sizeof(float), cudaMemcpyHostToDevice);
    float init = -FLT_MAX;
    cudaMemcpy(d_max, &init, sizeof(float), cudaMemcpyHostToDevice);

    int blocks = (n + TPB - 1) / TPB;
    max_reduce<<<blocks, TPB>>>(d_array, d_max, n);

    float result;
    cudaMemcpy(&result, d_max, sizeof(float), cudaMemcpyDeviceToHost);
    printf("gpu max %f  cpu max %f\n", result, ref);

    cudaFree(d_array); cudaFree(d_max); free(h);
    return 0;
}
