// launch: grid cdiv(n, 16), cdiv(m, 16) block 16, 16
// sizes: m=300 n=200 k=250
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
// kernel: mm_t
// a template on the element type, instantiated for float in the file
template <typename T>
__global__ void mm_t(const T* a, const T* b, T* c, int m, int n, int k) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < m && col < n) {
        T sum = 0;
        for (int i = 0; i < k; ++i) sum += a[row * k + i] * b[i * n + col];
        c[row * n + col] = sum;
    }
}
template __global__ void mm_t<float>(const float*, const float*, float*, int, int, int);
