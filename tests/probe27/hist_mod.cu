// launch: grid cdiv(n, 256) block 256
// sizes: n=300000 nbins=100
// expect: private-bins
// integer keys counted modulo the bin count
__global__ void count_keys(const int *keys, unsigned int *counts, int n, int nbins)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int k = keys[i] % nbins;
        if (k < 0) k += nbins;
        atomicAdd(counts + k, 1u);
    }
}
