// launch: grid cdiv(N, 16), cdiv(M, 16), batchCount block 16, 16
// sizes: M=96 N=130 K=72 batchCount=12
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// strided batched GEMM templated over the element type, batch on blockIdx.z, size_t offsets (tutorial-style bmm, like torch.bmm reference kernels)
#include <cstdio>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                       \
  do {                                                                         \
    cudaError_t err__ = (call);                                                \
    if (err__ != cudaSuccess) {                                                \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err__),   \
              __FILE__, __LINE__);                                             \
    }                                                                          \
  } while (0)

// C[b] = A[b] * B[b], A[b] is MxK, B[b] is KxN, C[b] is MxN, all row-major
template <typename T>
__global__ void bmm_naive(const T* __restrict__ A, const T* __restrict__ B,
                          T* __restrict__ C, int M, int N, int K, int batchCount)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int b   = blockIdx.z;
    if (b >= batchCount || row >= M || col >= N) return;

    const T* Ab = A + (size_t)b * M * K;
    const T* Bb = B + (size_t)b * K * N;
    T*       Cb = C + (size_t)b * M * N;

    T acc = T(0);
    for (int k = 0; k < K; ++k)
        acc += Ab[(size_t)row * K + k] * Bb[(size_t)k * N + col];
    Cb[(size_t)row * N + col] = acc;
}

template <typename T>
void launch_bmm(const T* dA, const T* dB, T* dC, int M, int N, int K, int batchCount, cudaStream_t stream = 0)
{
    dim3 block(16, 16);
    dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y, batchCount);
    bmm_naive<T><<<grid, block, 0, stream>>>(dA, dB, dC, M, N, K, batchCount);
    CUDA_CHECK(cudaGetLastError());
}

template void launch_bmm<float>(const float*, const float*, float*, int, int, int, int, cudaStream_t);
