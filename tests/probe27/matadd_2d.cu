// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M=1000 N=1500
// expect: elementwise
// C = A + B with 2-D thread indices
__global__ void matAdd(const float *A, const float *B, float *C, int M, int N)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N)
        C[row * N + col] = A[row * N + col] + B[row * N + col];
}
