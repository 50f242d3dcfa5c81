// style: Monte-Carlo course exercise "histogram of uniform samples"; bin = (int)(v * nbins) with values in [0,1) scaled by the bin count and clamped to nbins - 1, atomicAdd(&hist[bin], 1) on global unsigned int bins, early return on idx >= n, host main with cudaMalloc/cudaMemset/cudaMemcpy
// launch: grid cdiv(n, 256) block 256
// sizes: n=10007 nbins=37
// expect: private-bins
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void histogram_unit(const float *samples, unsigned int *hist, int n, int nbins)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= n)
        return;

    float v = samples[idx];
    int bin = (int)(v * nbins);
    if (bin >= nbins) bin = nbins - 1;
    if (bin < 0) bin = 0;
    atomicAdd(&hist[bin], 1);
}

int main()
{
    const int n = 10007, nbins = 37;
    float *h_samples = (float *)malloc(n * sizeof(float));
    unsigned int *h_hist = (unsigned int *)malloc(nbins * sizeof(unsigned int));
    srand(1234);
    for (int i = 0; i < n; ++i) h_samples[i] = (float)rand() / ((float)RAND_MAX + 1.0f);

    float *d_samples;
    unsigned int *d_hist;
    cudaMalloc((void **)&d_samples, n * sizeof(float));
    cudaMalloc((void **)&d_hist, nbins * sizeof(unsigned int));
    cudaMemcpy(d_samples, h_samples, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_hist, 0, nbins * sizeof(unsigned int));

    int threads = 256;
    int blocks = (n + threads - 1) / threads;
    histogram_unit<<<blocks, threads>>>(d_samples, d_hist, n, nbins);
    cudaMemcpy(h_hist, d_hist, nbins * sizeof(unsigned int), cudaMemcpyDeviceToHost);

    unsigned int total = 0;
    for (int b = 0; b < nbins; ++b) total += h_hist[b];
    printf("total counted: %u (expected %d)\n", total, n);

    cudaFree(d_samples);
    cudaFree(d_hist);
    free(h_samples);
    free(h_hist);
    return 0;
}
