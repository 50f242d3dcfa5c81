// style: "attention from scratch" repo bmm helper, batch on blockIdx.z, per-batch element offsets kept in size_t locals (offA/offB/offC) added inside every subscript rather than moving the pointers, unsigned thread coordinates, cudaMallocManaged host main
// launch: grid cdiv(N, 16), cdiv(M, 16), batch block 16, 16
// sizes: batch=3 M=67 N=45 K=37
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <cmath>
#include <cuda_runtime.h>

// out[z] (M x N) = lhs[z] (M x K) @ rhs[z] (K x N), all row-major and packed back to back
__global__ void bmm_kernel(const float *lhs, const float *rhs, float *out,
                           int batch, int M, int N, int K)
{
    const unsigned tx = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned ty = blockIdx.y * blockDim.y + threadIdx.y;
    const unsigned z = blockIdx.z;

    if (z >= (unsigned)batch || ty >= (unsigned)M || tx >= (unsigned)N)
        return;

    const size_t offA = (size_t)z * M * K;
    const size_t offB = (size_t)z * K * N;
    const size_t offC = (size_t)z * M * N;

    float acc = 0.0f;
    for (int kk = 0; kk < K; kk++)
        acc += lhs[offA + ty * K + kk] * rhs[offB + kk * N + tx];

    out[offC + ty * N + tx] = acc;
}

int main()
{
    const int batch = 3, M = 67, N = 45, K = 37;
    float *a, *b, *c;
    cudaMallocManaged(&a, sizeof(float) * batch * M * K);
    cudaMallocManaged(&b, sizeof(float) * batch * K * N);
    cudaMallocManaged(&c, sizeof(float) * batch * M * N);
    for (int i = 0; i < batch * M * K; i++) a[i] = (float)(i % 9) * 0.125f;
    for (int i = 0; i < batch * K * N; i++) b[i] = (float)(i % 5) * 0.25f - 0.5f;

    dim3 threads(16, 16);
    dim3 blocks((N + 15) / 16, (M + 15) / 16, batch);
    bmm_kernel<<<blocks, threads>>>(a, b, c, batch, M, N, K);
    cudaDeviceSynchronize();

    // spot-check the last batch
    int z = batch - 1;
    double maxdiff = 0.0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0.0;
            for (int k = 0; k < K; k++)
                s += a[(size_t)z * M * K + i * K + k] * b[(size_t)z * K * N + k * N + j];
            double d = fabs(s - c[(size_t)z * M * N + i * N + j]);
            if (d > maxdiff) maxdiff = d;
        }
    printf("max diff (batch %d): %g\n", z, maxdiff);

    cudaFree(a); cudaFree(b); cudaFree(c);
    return 0;
}
