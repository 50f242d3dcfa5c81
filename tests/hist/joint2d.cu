// a joint histogram of two 8-bit images (image registration's mutual information): each intensity rebinned by
// (v * nbins) >> 8, the pair's bin fb * nbins + mb: bounded by nbins * nbins through the product and the sum
__global__ void joint_hist(const unsigned char* a, const unsigned char* b, int n, int nbins, unsigned int* hist) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int fb = (a[i] * nbins) >> 8;
    int mb = (b[i] * nbins) >> 8;
    atomicAdd(&hist[fb * nbins + mb], 1u);
}
