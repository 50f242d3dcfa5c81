// style: simplest sum: every element atomicAdd'ed into one global float, grid-stride loop (LeetGPU "reduction" first try)
// launch: grid cdiv(N, 256) block 256
// sizes: N=100003
// expect: block-tree|block-atomic|warp-atomic
__global__ void reduction_atomic(const float* input, float* output, int N)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x)
        atomicAdd(output, input[i]);
}
