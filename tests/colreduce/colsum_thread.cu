// column sums, one thread per column from the thread index: already the column shape
__global__ void column_sum(const float* a, float* out, int rows, int cols)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < cols) {
        float s = 0.0f;
        for (int i = 0; i < rows; i++)
            s += a[i * cols + j];
        out[j] = s;
    }
}
