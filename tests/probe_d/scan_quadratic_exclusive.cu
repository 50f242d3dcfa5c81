// launch: grid cdiv(n, 256) block 256
// sizes: n=6000
// expect: scan-library|block-scan
// Exclusive scan where every thread re-sums its whole prefix (O(n^2) "embarrassingly parallel" first attempt, e.g. stream-compaction offsets)
#include <cuda_runtime.h>

__global__ void exclusive_scan_naive(const unsigned int* flags, unsigned int* offsets, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int s = 0;
        for (int j = 0; j < i; ++j)
            s += flags[j];
        offsets[i] = s;
    }
}

void compute_offsets(const unsigned int* d_flags, unsigned int* d_offsets, int n)
{
    const int threads = 256;
    exclusive_scan_naive<<<(n + threads - 1) / threads, threads>>>(d_flags, d_offsets, n);
}
