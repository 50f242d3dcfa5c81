// style: old university-course C89-style CUDA (SYRK-like Gram matrix); all declarations at the top of the kernel, /* */ comments, C = A * A^T with A row-major n x k, plain int indices, single-statement if guard around the body
// launch: grid cdiv(n, 16), cdiv(n, 16) block 16, 16
// sizes: n=71 k=39
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce

/* Gram matrix: C[i][j] = sum_p A[i][p] * A[j][p] */
__global__ void gram_kernel(float *C, const float *A, int n, int k)
{
    int i;
    int j;
    int p;
    float s;

    i = blockIdx.y * blockDim.y + threadIdx.y;
    j = blockIdx.x * blockDim.x + threadIdx.x;
    s = 0.0f;

    if (i < n && j < n) {
        for (p = 0; p < k; p++) {
            s = s + A[i * k + p] * A[j * k + p];
        }
        C[i * n + j] = s;
    }
}
