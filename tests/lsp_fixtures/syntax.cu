__global__ void broken(float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x
    out[i] = undefined_name;
}
