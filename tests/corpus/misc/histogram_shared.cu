// corpus: 256-bin histogram privatised per block in shared memory, merged once per block
// absent: fp64-in-float-kernel, sync-in-divergent-branch, shared-bank-conflict, register-spill, local-memory, uncoalesced-access, missing-restrict
__global__ void histogram_shared(const unsigned char* __restrict__ data, unsigned int* __restrict__ bins, int n) {
    __shared__ unsigned int local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        if (local[b]) atomicAdd(&bins[b], local[b]);
}

void launch_histogram(const unsigned char* data, unsigned int* bins, int n) {
    histogram_shared<<<264, 256>>>(data, bins, n);
}
