// A planted wrong kernel: the last block returns early, so its outputs stay unwritten.
__global__ void skip_last_block(float* out, const float* __restrict__ a, const float* __restrict__ b, int n) {
    if (blockIdx.x == gridDim.x - 1) return;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}
