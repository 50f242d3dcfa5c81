// 𝛼 scaling kernel
__global__ void alpha(float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    /* 𝛼 */ if (i < n) out[i] = out[i] * 2.0 + out[i + 1];
}
