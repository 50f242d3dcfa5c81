// style: naive column sums of a row-major M x N matrix, one thread per column looping down the rows (s += a[i*N + col])
// launch: grid cdiv(N, 128) block 128
// sizes: M=4099 N=1531
// expect: column
__global__ void column_sum(const float *a, float *colsum, int M, int N)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col < N) {
        float s = 0.0f;
        for (int i = 0; i < M; i++)
            s += a[i * N + col];
        colsum[col] = s;
    }
}
