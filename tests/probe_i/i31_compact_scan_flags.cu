// style: stream compaction (keep positive values) in three kernels: flags, per-section Brent-Kung exclusive scan of the flags (PMPP ch.11 style, SECTION_SIZE = 2*blockDim, block totals out), scatter; block offsets done on the host
// launch: grid cdiv(n, 1024) block 512
// sizes: n=100003
// kernel: scan_flags
// expect: block-scan|scan-library
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define SECTION_SIZE 1024
#define BLOCK_SIZE (SECTION_SIZE / 2)

__global__ void mark_positive(const float *in, int *flags, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) flags[i] = (in[i] > 0.0f) ? 1 : 0;
}

// exclusive scan of flags inside each SECTION_SIZE chunk; blockSums[b] = chunk total
__global__ void scan_flags(const int *flags, int *pos, int *blockSums, int n)
{
    __shared__ int XY[SECTION_SIZE];
    int i = 2 * blockIdx.x * blockDim.x + threadIdx.x;

    XY[threadIdx.x] = (i < n) ? flags[i] : 0;
    XY[threadIdx.x + blockDim.x] = (i + blockDim.x < n) ? flags[i + blockDim.x] : 0;

    // reduction tree
    for (unsigned int stride = 1; stride <= blockDim.x; stride *= 2) {
        __syncthreads();
        int index = (threadIdx.x + 1) * 2 * stride - 1;
        if (index < SECTION_SIZE)
            XY[index] += XY[index - stride];
    }
    // reverse tree
    for (int stride = SECTION_SIZE / 4; stride > 0; stride /= 2) {
        __syncthreads();
        int index = (threadIdx.x + 1) * stride * 2 - 1;
        if (index + stride < SECTION_SIZE)
            XY[index + stride] += XY[index];
    }
    __syncthreads();

    // inclusive -> exclusive by subtracting our own flag
    if (i < n) pos[i] = XY[threadIdx.x] - flags[i];
    if (i + blockDim.x < n) pos[i + blockDim.x] = XY[threadIdx.x + blockDim.x] - flags[i + blockDim.x];
    if (threadIdx.x == 0) blockSums[blockIdx.x] = XY[SECTION_SIZE - 1];
}

__global__ void scatter(const float *in, const int *flags, const int *pos,
                        const int *blockOffsets, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && flags[i])
        out[blockOffsets[i / SECTION_SIZE] + pos[i]] = in[i];
}

int main()
{
    int n = 100003;
    int numSections = (n + SECTION_SIZE - 1) / SECTION_SIZE;

    float *h_in = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) h_in[i] = (float)(rand() % 200 - 100);

    float *d_in, *d_out;
    int *d_flags, *d_pos, *d_blockSums, *d_blockOffsets;
    cudaMalloc((void **)&d_in, n * sizeof(float));
    cudaMalloc((void **)&d_out, n * sizeof(float));
    cudaMalloc((void **)&d_flags, n * sizeof(int));
    cudaMalloc((void **)&d_pos, n * sizeof(int));
    cudaMalloc((void **)&d_blockSums, numSections * sizeof(int));
    cudaMalloc((void **)&d_blockOffsets, numSections * sizeof(int));
    cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);

    mark_positive<<<(n + 255) / 256, 256>>>(d_in, d_flags, n);
    scan_flags<<<numSections, BLOCK_SIZE>>>(d_flags, d_pos, d_blockSums, n);

    // tiny second level on the CPU
    int *h_blockSums = (int *)malloc(numSections * sizeof(int));
    int *h_blockOffsets = (int *)malloc(numSections * sizeof(int));
    cudaMemcpy(h_blockSums, d_blockSums, numSections * sizeof(int), cudaMemcpyDeviceToHost);
    int total = 0;
    for (int b = 0; b < numSections; b++) { h_blockOffsets[b] = total; total += h_blockSums[b]; }
    cudaMemcpy(d_blockOffsets, h_blockOffsets, numSections * sizeof(int), cudaMemcpyHostToDevice);

    scatter<<<(n + 255) / 256, 256>>>(d_in, d_flags, d_pos, d_blockOffsets, d_out, n);

    float *h_out = (float *)malloc(n * sizeof(float));
    cudaMemcpy(h_out, d_out, total * sizeof(float), cudaMemcpyDeviceToHost);
    int k = 0, bad = 0;
    for (int i = 0; i < n; i++)
        if (h_in[i] > 0.0f) { if (h_out[k] != h_in[i]) bad++; k++; }
    printf("kept %d of %d, %s\n", total, n, (bad == 0 && k == total) ? "OK" : "WRONG");

    cudaFree(d_in); cudaFree(d_out); cudaFree(d_flags); cudaFree(d_pos);
    cudaFree(d_blockSums); cudaFree(d_blockOffsets);
    free(h_in); free(h_out); free(h_blockSums); free(h_blockOffsets);
    return 0;
}
