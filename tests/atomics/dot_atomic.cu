// a dot product: every thread adds its product to the result
__global__ void dot(const float* a, const float* b, float* result, int n) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) {
        float p = a[i] * b[i];
        atomicAdd(result, p);
    }
}
