// values in [lo, hi) binned into nbins equal bins; the bin count a parameter
__global__ void histogram_float(const float* data, int* bins, int n, float lo, float hi, int nbins)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = data[i];
        if (v >= lo && v < hi) {
            int b = (int)((v - lo) / (hi - lo) * nbins);
            atomicAdd(&bins[b], 1);
        }
    }
}
