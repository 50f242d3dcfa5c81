// style: cuBLAS-helper-like batched transpose template; batch on blockIdx.z, per-batch base pointers formed by pointer arithmetic, block 32x8 with one element per thread, templated launcher with cudaMalloc
// launch: grid cdiv(N, 32), cdiv(M, 8), batch block 32, 8
// sizes: batch=5 M=123 N=77
// template: float
// expect: transpose-tile
#include <cuda_runtime.h>
#include <cstddef>

template <typename T>
__global__ void batched_transpose(T* __restrict__ dst, const T* __restrict__ src,
                                  int batch, int M, int N)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;   // column of src, 0..N-1
    int row = blockIdx.y * blockDim.y + threadIdx.y;   // row of src,    0..M-1
    int b   = blockIdx.z;
    if (b >= batch || row >= M || col >= N) return;

    const T* s = src + (size_t)b * M * N;   // src[b] is M x N
    T*       d = dst + (size_t)b * M * N;   // dst[b] is N x M
    d[col * M + row] = s[row * N + col];
}

template <typename T>
void transpose_batched_host(const T* h_src, T* h_dst, int batch, int M, int N)
{
    size_t bytes = sizeof(T) * (size_t)batch * M * N;
    T *d_src, *d_dst;
    cudaMalloc(&d_src, bytes);
    cudaMalloc(&d_dst, bytes);
    cudaMemcpy(d_src, h_src, bytes, cudaMemcpyHostToDevice);

    dim3 block(32, 8);
    dim3 grid((N + 31) / 32, (M + 7) / 8, batch);
    batched_transpose<T><<<grid, block>>>(d_dst, d_src, batch, M, N);

    cudaMemcpy(h_dst, d_dst, bytes, cudaMemcpyDeviceToHost);
    cudaFree(d_src);
    cudaFree(d_dst);
}

template void transpose_batched_host<float>(const float*, float*, int, int, int);
