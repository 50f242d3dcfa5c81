// launch: grid cdiv(N, 256) block 256
// sizes: N=200000
// expect: block-tree|block-atomic
// whole-array sum with one atomicAdd per element into a single float (LeetGPU "Reduction" beginner solution)
#include <cuda_runtime.h>

__global__ void reduction_kernel(const float* input, float* output, int N) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < N) {
        atomicAdd(output, input[idx]);
    }
}

// input, output are device pointers
extern "C" void solve(const float* input, float* output, int N) {
    int threadsPerBlock = 256;
    int blocksPerGrid = (N + threadsPerBlock - 1) / threadsPerBlock;
    cudaMemset(output, 0, sizeof(float));
    reduction_kernel<<<blocksPerGrid, threadsPerBlock>>>(input, output, N);
    cudaDeviceSynchronize();
}
