// a weighted histogram of values in [0, 1): float bins, the count a #define
#define NUM_BINS 64

__global__ void weighted_hist(const float *x, const float *w, float *hist, int n)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= n) return;
    int bin = (int)(x[tid] * NUM_BINS);
    if (bin < 0) bin = 0;
    if (bin > NUM_BINS - 1) bin = NUM_BINS - 1;
    atomicAdd(&hist[bin], w[tid]);
}
