// launch: grid cdiv(n, 256) block 256
// sizes: n=200000 nbins=64 lo=-4.0 hi=4.0
// expect: private-bins
// values in [lo, hi) binned into nbins equal bins
__global__ void hist_float(const float* x, int n, int* hist, int nbins, float lo, float hi)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int b = (int)((x[i] - lo) / (hi - lo) * nbins);
    if (b >= 0 && b < nbins)
        atomicAdd(&hist[b], 1);
}
