// launch: grid cdiv(N, 256) block 256
// sizes: N=6000
// expect: scan-library|block-scan
// inclusive prefix sum where thread i re-adds input[0..i] itself, O(n^2) work (beginner LeetGPU "Prefix Sum" attempt)
#include <cuda_runtime.h>

__global__ void prefix_sum_kernel(const float* input, float* output, int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        float sum = 0.0f;
        for (int j = 0; j <= i; j++) {
            sum += input[j];
        }
        output[i] = sum;
    }
}

// input, output are device pointers
extern "C" void solve(const float* input, float* output, int N) {
    int threadsPerBlock = 256;
    int blocksPerGrid = (N + threadsPerBlock - 1) / threadsPerBlock;
    prefix_sum_kernel<<<blocksPerGrid, threadsPerBlock>>>(input, output, N);
    cudaDeviceSynchronize();
}
