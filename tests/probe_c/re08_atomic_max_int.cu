// launch: grid cdiv(n, 256) block 256
// sizes: n=300000
// expect: block-tree|block-atomic
// array maximum with one atomicMax per element into a single int (beginner "find max with atomics" tutorial kernel)
#include <climits>

__global__ void find_max(const int *data, int *result, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicMax(result, data[i]);
}
