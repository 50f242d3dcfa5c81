// style: ATen-like strided batched GEMM: template<typename T>, int64_t batch strides as arguments, blockIdx.z is the batch, per-batch base pointers formed up front
// launch: grid cdiv(N, 16), cdiv(M, 16), batch block 16, 16
// sizes: batch=3 M=33 N=47 K=29 strideA=957 strideB=1363 strideC=1551
// template: float
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdint>

template <typename T>
__global__ void bmm_strided_kernel(const T* A, const T* B, T* C,
                                   int batch, int M, int N, int K,
                                   int64_t strideA, int64_t strideB, int64_t strideC)
{
    const int b = blockIdx.z;
    const int m = blockIdx.y * blockDim.y + threadIdx.y;
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch || m >= M || n >= N) return;

    const T* Ab = A + b * strideA;   // M x K
    const T* Bb = B + b * strideB;   // K x N
    T* Cb = C + b * strideC;         // M x N

    T acc = T(0);
    for (int k = 0; k < K; ++k) {
        acc += Ab[m * K + k] * Bb[k * N + n];
    }
    Cb[m * N + n] = acc;
}

template __global__ void bmm_strided_kernel<float>(const float*, const float*, float*,
                                                   int, int, int, int,
                                                   int64_t, int64_t, int64_t);
