// launch: grid cdiv(cols, 32), cdiv(rows, 8), batch block 32, 8
// sizes: rows=300 cols=420 batch=6
// expect: transpose-tile
// batched 2-D transpose templated on the element type, batch on blockIdx.z, with a host launcher (typical util kernel in inference code bases)
#include <cstdint>
#include <cuda_runtime.h>

template <typename T>
__global__ void batch_transpose_kernel(T* dst, const T* src, int batch, int rows, int cols)
{
    const int64_t b = blockIdx.z;
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (b < batch && r < rows && c < cols) {
        const int64_t plane = (int64_t)rows * cols;
        dst[b * plane + (int64_t)c * rows + r] = src[b * plane + (int64_t)r * cols + c];
    }
}

template <typename T>
void invokeBatchTranspose(T* dst, const T* src, int batch, int rows, int cols, cudaStream_t stream)
{
    dim3 block(32, 8);
    dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y, batch);
    batch_transpose_kernel<T><<<grid, block, 0, stream>>>(dst, src, batch, rows, cols);
}

template void invokeBatchTranspose<float>(float*, const float*, int, int, int, cudaStream_t);
