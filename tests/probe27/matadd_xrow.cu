// launch: grid cdiv(M, 16), cdiv(N, 16) block 16, 16
// sizes: M=1000 N=1500
// expect: coalesce-xy
// C = A + B with the row taken from x (a course's first attempt)
__global__ void mat_add(float *A, float *B, float *C, int M, int N)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < M && j < N)
        C[i * N + j] = A[i * N + j] + B[i * N + j];
}
