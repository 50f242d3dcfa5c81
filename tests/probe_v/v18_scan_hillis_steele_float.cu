// style: PMPP-homework inclusive Hillis-Steele (Kogge-Stone) block scan on float; read-neighbour / __syncthreads / element-wise `s[tid] += t` loop in a static shared array, tail padded with 0, block totals written out, plus a second kernel that adds scanned block offsets (`out[i] += offs[blockIdx.x]`), host main scans the block totals on the CPU
// kernel: scan_block_inclusive
// launch: grid cdiv(n, 256) block 256
// sizes: n=3001
// expect: block-scan|scan-library|row-scan
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define SECTION 256

__global__ void scan_block_inclusive(const float *in, float *out, float *block_sums, int n)
{
    __shared__ float s[SECTION];
    int tid = threadIdx.x;
    int i = blockIdx.x * SECTION + tid;

    s[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();

    for (int offset = 1; offset < SECTION; offset *= 2) {
        float t = 0.0f;
        if (tid >= offset)
            t = s[tid - offset];
        __syncthreads();
        s[tid] += t;
        __syncthreads();
    }

    if (i < n) out[i] = s[tid];
    if (tid == SECTION - 1) block_sums[blockIdx.x] = s[tid];
}

__global__ void add_block_offsets(float *out, const float *offs, int n)
{
    int i = blockIdx.x * SECTION + threadIdx.x;
    if (blockIdx.x > 0 && i < n)
        out[i] += offs[blockIdx.x - 1];
}

int main()
{
    int n = 3001;
    int nb = (n + SECTION - 1) / SECTION;
    float *h_in = (float *)malloc(n * sizeof(float));
    float *h_out = (float *)malloc(n * sizeof(float));
    float *h_sums = (float *)malloc(nb * sizeof(float));
    for (int i = 0; i < n; i++) h_in[i] = (float)(i % 7) * 0.5f;

    float *d_in, *d_out, *d_sums;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMalloc(&d_sums, nb * sizeof(float));
    cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);

    scan_block_inclusive<<<nb, SECTION>>>(d_in, d_out, d_sums, n);
    cudaMemcpy(h_sums, d_sums, nb * sizeof(float), cudaMemcpyDeviceToHost);
    for (int b = 1; b < nb; b++) h_sums[b] += h_sums[b - 1];   // tiny CPU scan of block totals
    cudaMemcpy(d_sums, h_sums, nb * sizeof(float), cudaMemcpyHostToDevice);
    add_block_offsets<<<nb, SECTION>>>(d_out, d_sums, n);
    cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);

    float acc = 0.0f, maxerr = 0.0f;
    for (int i = 0; i < n; i++) {
        acc += h_in[i];
        maxerr = fmaxf(maxerr, fabsf(acc - h_out[i]));
    }
    printf("max abs error %g\n", maxerr);

    cudaFree(d_in); cudaFree(d_out); cudaFree(d_sums);
    free(h_in); free(h_out); free(h_sums);
    return 0;
}
