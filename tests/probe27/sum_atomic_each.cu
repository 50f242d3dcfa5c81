// launch: grid cdiv(n, 256) block 256
// sizes: n=1000000
// expect: block-atomic|block-tree
// whole-array sum, every thread adding into one counter
__global__ void total(const float *x, float *result, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(result, x[i]);
}
