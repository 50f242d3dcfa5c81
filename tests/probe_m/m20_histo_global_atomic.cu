// style: PMPP-chapter histogram, first version: grid-stride loop with plain global atomicAdd per element (no shared-memory privatization), float values binned by (x - lo) * nbins / (hi - lo) with clamping; host main
// launch: grid 30 block 128
// sizes: n=100003 nbins=37 lo=-2.0 hi=3.0
// expect: private-bins
#include <stdio.h>
#include <stdlib.h>

__global__ void histo_global(const float *data, unsigned int *bins, int n, int nbins, float lo, float hi)
{
    const float scale = nbins / (hi - lo);
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float f = (data[i] - lo) * scale;
        int b = (f < 0.0f) ? 0 : ((f >= (float)nbins) ? nbins - 1 : (int)f);
        atomicAdd(&bins[b], 1u);
    }
}

int main(void)
{
    const int n = 100003, nbins = 37;
    const float lo = -2.0f, hi = 3.0f;
    float *h_data = (float *)malloc(n * sizeof(float));
    unsigned int h_bins[nbins];
    for (int i = 0; i < n; i++) h_data[i] = -2.5f + 6.0f * (float)rand() / (float)RAND_MAX;

    float *d_data;
    unsigned int *d_bins;
    cudaMalloc((void **)&d_data, n * sizeof(float));
    cudaMalloc((void **)&d_bins, nbins * sizeof(unsigned int));
    cudaMemcpy(d_data, h_data, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_bins, 0, nbins * sizeof(unsigned int));

    histo_global<<<30, 128>>>(d_data, d_bins, n, nbins, lo, hi);
    cudaMemcpy(h_bins, d_bins, nbins * sizeof(unsigned int), cudaMemcpyDeviceToHost);

    unsigned long total = 0;
    for (int b = 0; b < nbins; b++) total += h_bins[b];
    printf("total = %lu (expected %d)\n", total, n);

    cudaFree(d_data); cudaFree(d_bins); free(h_data);
    return 0;
}
