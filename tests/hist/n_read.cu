// negative: the bins are read in the same kernel (a count capped at a limit)
__global__ void capped_hist(const unsigned char* in, unsigned int* hist, int n, unsigned int cap)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned char b = in[i];
        if (hist[b] < cap) atomicAdd(&hist[b], 1u);
    }
}
