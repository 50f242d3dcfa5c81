// Writes far outside its buffer: CUDA_ERROR_ILLEGAL_ADDRESS, which poisons the context.
__global__ void illegal_address(float* out, const float* __restrict__ a, const float* __restrict__ b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i + (1ll << 40)] = a[i] + b[i];
}
