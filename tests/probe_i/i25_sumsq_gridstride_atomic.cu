// style: NVIDIA-blog grid-stride loop ("CUDA Pro Tip") sum of squares, each thread accumulates privately and does one atomicAdd(result, local) at the end
// launch: grid 80 block 256
// sizes: n=1000003
// expect: block-atomic|block-tree
__global__ void sum_of_squares(const float *x, float *result, int n)
{
    float local = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float v = x[i];
        local += v * v;
    }
    atomicAdd(result, local);
}
