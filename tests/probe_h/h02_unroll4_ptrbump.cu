// style: hand-unrolled naive SGEMM (forum/blog "manual unroll" style): k loop unrolled by 4 with pointer bumps, scalar remainder loop
// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M=187 N=141 K=223
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library

// C[M][N] = A[M][K] * B[K][N], all row-major.
__global__ void matmul_unroll4(const float *A, const float *B, float *C,
                               int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;

    const float *a = A + row * K;   // walks along the row of A
    const float *b = B + col;       // walks down the column of B
    float sum = 0.0f;

    int k = 0;
    for (; k + 3 < K; k += 4) {
        sum += a[0] * b[0];
        sum += a[1] * b[N];
        sum += a[2] * b[2 * N];
        sum += a[3] * b[3 * N];
        a += 4;
        b += 4 * N;
    }
    // leftover (K % 4) terms
    for (; k < K; ++k) {
        sum += *a * *b;
        ++a;
        b += N;
    }

    C[row * N + col] = sum;
}
