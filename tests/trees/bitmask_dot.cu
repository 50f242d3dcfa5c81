// a dot product per block: the interleaved tree by a bit mask, s <<= 1, the value a product
__global__ void dot_partial(const float* a, const float* b, float* out, int n) {
    extern __shared__ float cache[];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    float p = 0.f;
    if (i < n) p = a[i] * b[i];
    cache[t] = p;
    __syncthreads();
    for (int s = 1; s < blockDim.x; s <<= 1) {
        if ((t & (2 * s - 1)) == 0) cache[t] += cache[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = 0.5f * cache[0];
}
