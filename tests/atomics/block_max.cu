// the largest key per block: atomicMax at the block's own slot
__global__ void block_max(const int* keys, int* best, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicMax(&best[blockIdx.x], keys[i]);
}
