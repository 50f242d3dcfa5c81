// launch: grid cdiv(N, 16), cdiv(N, 16) block 16, 16
// sizes: N=512
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
// a widely copied tutorial's product: the sum guarded, the store after the guard (N a multiple of the block)
__global__ void matrixMultiplicationKernel(float* A, float* B, float* C, int N) {

    int ROW = blockIdx.y*blockDim.y+threadIdx.y;
    int COL = blockIdx.x*blockDim.x+threadIdx.x;

    float tmpSum = 0;

    if (ROW < N && COL < N) {
        // each thread computes one element of the block sub-matrix
        for (int i = 0; i < N; i++) {
            tmpSum += A[ROW * N + i] * B[i * N + COL];
        }
    }
    C[ROW * N + COL] = tmpSum;
}
