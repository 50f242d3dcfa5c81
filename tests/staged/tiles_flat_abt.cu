// flat shared arrays, B stored transposed (C = A * B^T), alpha/beta epilogue, sizes multiples of the tile
#define T 8
__global__ void gemm_abt_smem(int m, int n, int k, float alpha, const float* a, const float* b, float beta, float* c) {
    __shared__ float as[T * T], bs[T * T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int i = blockIdx.y * T + ty;
    const int j = blockIdx.x * T + tx;
    float s = 0.f;
    for (int kt = 0; kt < k / T; kt++) {
        as[ty * T + tx] = a[i * k + kt * T + tx];
        bs[ty * T + tx] = b[(blockIdx.x * T + ty) * k + kt * T + tx];
        __syncthreads();
        for (int kk = 0; kk < T; ++kk) s += as[ty * T + kk] * bs[tx * T + kk];
        __syncthreads();
    }
    c[i * n + j] = alpha * s + beta * c[i * n + j];
}
