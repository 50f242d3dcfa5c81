// style: StackOverflow "count elements greater than X" question code; threadIdx.x first in the index sum, early return, one int atomicAdd per qualifying element, separate reset_counter kernel in the same file
// launch: grid cdiv(n, 128) block 128
// sizes: n=99991 threshold=0.5
// kernel: count_above
// expect: block-atomic|warp-atomic|block-tree

__global__ void reset_counter(int* count)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) *count = 0;
}

// Host: reset_counter<<<1,1>>>(d_count); count_above<<<(n+127)/128,128>>>(...);
// then cudaMemcpy the single int back.
__global__ void count_above(const float* data, int* count, int n, float threshold)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i >= n) return;
    if (data[i] > threshold)
        atomicAdd(count, 1);
}
