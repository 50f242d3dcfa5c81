// negative: a Gauss-Seidel-like sweep in place (threads read neighbours others update)
__global__ void smooth(float* a, int n) {
    int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i > 0 && j > 0 && i < n - 1 && j < n - 1)
        a[i * n + j] = 0.25f * (a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1] + a[i * n + j + 1]);
}
