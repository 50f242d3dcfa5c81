// launch: grid 1 block 512
// sizes: n=150000
// expect: block-tree
// whole-array sum of squares (squared L2 norm) in ONE block: each thread strides by blockDim.x, then a shared-memory tree (simple "norm" kernel in numerical tutorial code)
#define BLOCK_SIZE 512

__global__ void norm2_single_block(const double *x, double *result, int n)
{
    __shared__ double partial[BLOCK_SIZE];

    int t = threadIdx.x;
    double acc = 0.0;
    for (int i = t; i < n; i += blockDim.x)
        acc += x[i] * x[i];
    partial[t] = acc;
    __syncthreads();

    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride)
            partial[t] += partial[t + stride];
        __syncthreads();
    }

    if (t == 0)
        *result = partial[0];
}
