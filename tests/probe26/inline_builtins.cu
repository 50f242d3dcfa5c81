// launch: grid cdiv(n, 16), cdiv(n, 16) block 16, 16
// sizes: n=1000
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
__global__ void matMul(float *A, float *B, float *C, int n) {
    float sum = 0.0f;
    if (blockIdx.y * blockDim.y + threadIdx.y < n && blockIdx.x * blockDim.x + threadIdx.x < n) {
        for (int k = 0; k < n; k++)
            sum += A[(blockIdx.y * blockDim.y + threadIdx.y) * n + k] * B[k * n + blockIdx.x * blockDim.x + threadIdx.x];
        C[(blockIdx.y * blockDim.y + threadIdx.y) * n + blockIdx.x * blockDim.x + threadIdx.x] = sum;
    }
}
