// negative: a histogram: each thread's bin is its own address
__global__ void histogram(const int* x, unsigned int* bins, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[x[i]], 1u);
}
