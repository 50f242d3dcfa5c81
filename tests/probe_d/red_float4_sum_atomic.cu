// launch: grid cdiv(n4, 256) block 256
// sizes: n4=90000
// expect: block-tree|block-atomic
// Vectorized sum: each thread reads one float4 through __ldg, adds its four lanes and does one global atomicAdd (half-optimized blog-style reduction)
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

__global__ void sum_float4_atomic(const float4* __restrict__ in, float* __restrict__ out, int n4)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n4) {
        float4 v = __ldg(&in[idx]);
        atomicAdd(out, (v.x + v.y) + (v.z + v.w));
    }
}

int main(int argc, char** argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 360000;   // must be a multiple of 4
    int n4 = n / 4;
    float* h = (float*)malloc(n * sizeof(float));
    for (int i = 0; i < n; ++i) h[i] = 0.25f;

    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, sizeof(float));
    cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_out, 0, sizeof(float));

    dim3 block(256);
    dim3 grid((n4 + block.x - 1) / block.x);
    sum_float4_atomic<<<grid, block>>>(reinterpret_cast<const float4*>(d_in), d_out, n4);

    float result;
    cudaMemcpy(&result, d_out, sizeof(float), cudaMemcpyDeviceToHost);
    printf("sum = %f (expected %f)\n", result, 0.25f * n);
    cudaFree(d_in); cudaFree(d_out); free(h);
    return 0;
}
