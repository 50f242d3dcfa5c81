// launch: grid cdiv(cols, 32), cdiv(rows, 8) block 32, 8
// sizes: rows=999 cols=1001
// expect: transpose-tile
// a templated out-of-place transpose with an early return
template <typename T>
__global__ void transpose(const T* __restrict__ in, T* __restrict__ out, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= rows || c >= cols)
        return;
    out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

template __global__ void transpose<float>(const float*, float*, int, int);
