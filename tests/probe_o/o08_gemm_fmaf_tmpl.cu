// style: tiny-cuda-nn-ish templated real type with a specialised madd() helper calling fmaf; const unsigned params, explicit instantiation
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=67 N=129 K=45
// template: float
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce

template <typename real> __device__ __forceinline__ real madd(real a, real b, real c);

template <> __device__ __forceinline__ float madd<float>(float a, float b, float c)
{
    return fmaf(a, b, c);
}

template <> __device__ __forceinline__ double madd<double>(double a, double b, double c)
{
    return fma(a, b, c);
}

template <typename real>
__global__ void gemm_fma(const unsigned M, const unsigned N, const unsigned K,
                         const real* __restrict__ a,
                         const real* __restrict__ b,
                         real* __restrict__ c)
{
    const unsigned col = threadIdx.x + blockIdx.x * blockDim.x;
    const unsigned row = threadIdx.y + blockIdx.y * blockDim.y;
    if (row < M && col < N) {
        real acc = real(0);
        for (unsigned kk = 0; kk < K; ++kk)
            acc = madd<real>(a[row * K + kk], b[kk * N + col], acc);
        c[row * N + col] = acc;
    }
}

template __global__ void gemm_fma<float>(const unsigned, const unsigned, const unsigned,
                                         const float* __restrict__, const float* __restrict__,
                                         float* __restrict__);
