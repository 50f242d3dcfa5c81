// launch: grid cdiv(n, 256) block 256
// sizes: n=1000000
// expect: block-tree
// whole-array sum: a block tree, then one atomic per block into the total
#define BS 256
__global__ void sum_all(const float* __restrict__ in, float* out, int n)
{
    __shared__ float buf[BS];
    int t = threadIdx.x;
    int g = blockIdx.x * BS + t;
    buf[t] = g < n ? in[g] : 0.0f;
    __syncthreads();
    for (int stride = BS / 2; stride >= 1; stride /= 2) {
        if (t < stride)
            buf[t] += buf[t + stride];
        __syncthreads();
    }
    if (t == 0)
        atomicAdd(out, buf[0]);
}
