// style: batched matmul (torch.bmm-like, raw pointers) where each thread loops over the batch inside the kernel
// launch: grid cdiv(n, 16), cdiv(m, 16) block 16, 16
// sizes: batch=4 m=83 n=107 k=139
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
__global__ void bmm_kernel(const float *a, const float *b, float *c,
                           int batch, int m, int n, int k)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m || col >= n) return;

    for (int bi = 0; bi < batch; ++bi) {
        const float *ab = a + (size_t)bi * m * k;
        const float *bb = b + (size_t)bi * k * n;
        float *cb = c + (size_t)bi * m * n;
        float acc = 0.0f;
        for (int p = 0; p < k; ++p)
            acc += ab[row * k + p] * bb[p * n + col];
        cb[row * n + col] = acc;
    }
}
