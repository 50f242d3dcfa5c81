// style: BLAS-style SYR2K with `typedef float real;`, C = alpha*(A*B^T + B*A^T) + beta*C, row index i taken from threadIdx.x
// launch: grid cdiv(N, 32), cdiv(N, 4) block 32, 4
// sizes: N=141 K=223 alpha=0.75 beta=1.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce|matmul-library
typedef float real;

__global__ void syr2k(int N, int K, real alpha, const real *A, const real *B, real beta, real *C)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < N && j < N) {
        real t = (real)0;
        for (int k = 0; k < K; k++) {
            t += A[i * K + k] * B[j * K + k] + B[i * K + k] * A[j * K + k];
        }
        C[i * N + j] = alpha * t + beta * C[i * N + j];
    }
}
