// negative: an in-place transpose (reads what others write)
__global__ void transpose_inplace(float* a, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < n && y < n && x < y) {
        float t = a[y * n + x];
        a[y * n + x] = a[x * n + y];
        a[x * n + y] = t;
    }
}
