// counts of keys modulo the bin count, a grid-stride for loop
__global__ void count_keys(const int* __restrict__ keys, int* __restrict__ counts, int n, int num_bins)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(&counts[keys[i] % num_bins], 1);
    }
}
