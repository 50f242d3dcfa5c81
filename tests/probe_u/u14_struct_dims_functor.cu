// style: C++-flavoured research code passing the problem shape as a struct by value (struct Dims { int M, N, K; }) and doing the multiply-add through a small functor object (FusedMulAdd::operator() calling fmaf) instantiated inside the kernel; d.M / d.N / d.K used for every guard and index
// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M=67 N=93 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

struct Dims {
    int M, N, K;
};

struct FusedMulAdd {
    __device__ __forceinline__ float operator()(float acc, float a, float b) const
    {
        return fmaf(a, b, acc);
    }
};

__global__ void matmul_dims(Dims d, const float *__restrict__ A,
                            const float *__restrict__ B, float *__restrict__ C)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= d.M || c >= d.N)
        return;

    FusedMulAdd mad;
    float acc = 0.0f;
    for (int k = 0; k < d.K; ++k)
        acc = mad(acc, A[r * d.K + k], B[k * d.N + c]);
    C[r * d.N + c] = acc;
}

void launch_matmul(Dims d, const float *A, const float *B, float *C, cudaStream_t s)
{
    dim3 block(32, 8);
    dim3 grid((d.N + block.x - 1) / block.x, (d.M + block.y - 1) / block.y);
    matmul_dims<<<grid, block, 0, s>>>(d, A, B, C);
}
