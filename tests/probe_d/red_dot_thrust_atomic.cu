// launch: grid cdiv(n, 512) block 512
// sizes: n=250000
// expect: block-tree|block-atomic
// Dot product where each thread atomically adds a[i]*b[i] into one global accumulator; host uses thrust::device_vector raw pointers
#include <cuda_runtime.h>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <iostream>

__global__ void dot_atomic(const float* a, const float* b, float* result, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(result, a[i] * b[i]);
}

int main()
{
    const int n = 250000;
    thrust::host_vector<float> ha(n), hb(n);
    for (int i = 0; i < n; ++i) { ha[i] = 1.0f; hb[i] = (i % 3) * 0.5f; }
    thrust::device_vector<float> a = ha, b = hb;
    thrust::device_vector<float> result(1, 0.0f);

    const int threads = 512;
    const int blocks = (n + threads - 1) / threads;
    dot_atomic<<<blocks, threads>>>(thrust::raw_pointer_cast(a.data()),
                                    thrust::raw_pointer_cast(b.data()),
                                    thrust::raw_pointer_cast(result.data()), n);
    cudaDeviceSynchronize();
    float r = result[0];
    std::cout << "dot = " << r << std::endl;
    return 0;
}
