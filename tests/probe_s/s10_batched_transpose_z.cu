// style: deep-learning framework utility "batched matrix transpose" (templated on element type); batch index from blockIdx.z as size_t, per-matrix offset b * rows * cols added to both pointers, r/c from y/x, const T* __restrict__ src, explicit instantiation for float, no host code
// launch: grid cdiv(cols, 16), cdiv(rows, 16), batch block 16, 16
// sizes: rows=45 cols=71 batch=3
// template: float
// expect: transpose-tile
#include <cuda_runtime.h>

template <typename T>
__global__ void batched_transpose(const T* __restrict__ src, T* __restrict__ dst, int rows, int cols)
{
    const size_t b = blockIdx.z;
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= rows || c >= cols) return;

    const size_t mat = static_cast<size_t>(rows) * cols;
    const T* s = src + b * mat;
    T* d = dst + b * mat;
    d[static_cast<size_t>(c) * rows + r] = s[static_cast<size_t>(r) * cols + c];
}

template __global__ void batched_transpose<float>(const float* __restrict__, float* __restrict__, int, int);
