// style: Harris "reduction #3" sequential addressing with a fixed __shared__ float s[256], here summing squares for an L2 norm; unsigned stride loop s >>= 1, block result added with one atomicAdd by thread 0, host code with cudaMemset/cudaMemcpy
// launch: grid cdiv(n, 256) block 256
// sizes: n=4099
// expect: block-tree|block-atomic
#include <cstdio>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

__global__ void sumsq_kernel(const float* x, float* result, int n)
{
    __shared__ float s[256];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    float v = (i < (unsigned)n) ? x[i] : 0.0f;
    s[tid] = v * v;
    __syncthreads();

    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride)
            s[tid] += s[tid + stride];
        __syncthreads();
    }

    if (tid == 0)
        atomicAdd(result, s[0]);
}

int main()
{
    const int n = 4099;
    std::vector<float> h(n);
    for (int i = 0; i < n; ++i) h[i] = (i % 3) - 1.0f;

    float *d_x, *d_sum;
    cudaMalloc(&d_x, n * sizeof(float));
    cudaMalloc(&d_sum, sizeof(float));
    cudaMemcpy(d_x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_sum, 0, sizeof(float));

    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    sumsq_kernel<<<blocks, threads>>>(d_x, d_sum, n);

    float sum = 0.0f;
    cudaMemcpy(&sum, d_sum, sizeof(float), cudaMemcpyDeviceToHost);
    printf("||x||_2 = %f\n", std::sqrt(sum));
    cudaFree(d_x); cudaFree(d_sum);
    return 0;
}
