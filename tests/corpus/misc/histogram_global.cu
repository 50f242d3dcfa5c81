// corpus: 256-bin histogram, every increment an atomic on global memory; a double literal in the weight
// absent: sync-in-divergent-branch, shared-bank-conflict, register-spill, local-memory, uncoalesced-access
__global__ void histogram_global(const unsigned char* __restrict__ data, float* __restrict__ bins, int n, float scale) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&bins[data[i]], scale * 0.1);  // expect: fp64-in-float-kernel
}

void launch_histogram(const unsigned char* data, float* bins, int n) {
    histogram_global<<<264, 256>>>(data, bins, n, 1.0f);
}
