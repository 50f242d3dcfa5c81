// launch: grid cdiv(n, 16), cdiv(n, 16) block 16, 16
// sizes: n
// reference: c = a @ b
// recognise: rows y, columns x
template <typename T>
__global__ void matmul_kernel(const T* a, const T* b, T* c, int n) {
    int tx = threadIdx.x + blockIdx.x * blockDim.x;
    int ty = threadIdx.y + blockIdx.y * blockDim.y;
    if (tx >= n || ty >= n) return;
    T sum = 0;
    for (int i = 0; i < n; i++) {
        sum += a[ty * n + i] * b[i * n + tx];
    }
    c[ty * n + tx] = sum;
}
template __global__ void matmul_kernel<float>(const float*, const float*, float*, int);
