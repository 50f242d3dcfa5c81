// launch: grid cdiv(size, 16), cdiv(size, 16) block 16, 16
// sizes: size=500
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
// idx on the columns, idy on the rows
__global__ void matrixMultiplicationKernel(float *A, float *B, float *C, int size) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int idy = blockIdx.y * blockDim.y + threadIdx.y;
    if (idx < size && idy < size) {
        float sum = 0.0f;
        for (int i = 0; i < size; i++) {
            sum += A[idy * size + i] * B[i * size + idx];
        }
        C[idy * size + idx] = sum;
    }
}
