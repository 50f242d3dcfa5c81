// a block per column, its first thread walking down the column
__global__ void column_sums(const float* A, float* sums, int M, int N)
{
    int col = blockIdx.x;
    if (threadIdx.x == 0 && col < N) {
        float total = 0.0f;
        for (int row = 0; row < M; ++row)
            total += A[row * N + col];
        sums[col] = total;
    }
}
