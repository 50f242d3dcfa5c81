// row sums of a column-major matrix, one thread per row striding across the columns
__global__ void rowsum_cm(const float* A, float* y, int M, int N)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= M) return;
    float s = 0;
    for (int j = 0; j < N; j++) s += A[j * M + i];
    y[i] = s;
}
