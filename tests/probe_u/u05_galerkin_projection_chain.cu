// style: reduced-order-model / quantum-chemistry code computing the Galerkin projection S = P^T (H P) as a chain of two naive kernels; the second kernel reads the temporary W = H*P from global memory and walks P transposed (P[l*k + i]), host main runs both launches back to back
// kernel: project_left
// launch: grid cdiv(k, 16), cdiv(k, 16) block 16, 16
// sizes: n=77 k=29
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                          \
    do {                                                                     \
        cudaError_t err__ = (call);                                          \
        if (err__ != cudaSuccess) {                                          \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,               \
                    cudaGetErrorString(err__));                              \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

// W (n x k) = H (n x n) * P (n x k)
__global__ void apply_operator(const float *H, const float *P, float *W, int n, int k)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;  // 0..k-1
    int row = blockIdx.y * blockDim.y + threadIdx.y;  // 0..n-1
    if (row < n && col < k) {
        float s = 0.f;
        for (int l = 0; l < n; ++l)
            s += H[row * n + l] * P[l * k + col];
        W[row * k + col] = s;
    }
}

// S (k x k) = P^T (k x n) * W (n x k)
__global__ void project_left(const float *P, const float *W, float *S, int n, int k)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;  // 0..k-1
    int row = blockIdx.y * blockDim.y + threadIdx.y;  // 0..k-1
    if (row < k && col < k) {
        float s = 0.f;
        for (int l = 0; l < n; ++l)
            s += P[l * k + row] * W[l * k + col];
        S[row * k + col] = s;
    }
}

int main()
{
    const int n = 77, k = 29;
    std::vector<float> H(n * n), P(n * k), S(k * k);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            H[i * n + j] = (i == j) ? 2.0f : ((abs(i - j) == 1) ? -1.0f : 0.0f);
    for (int i = 0; i < n * k; ++i) P[i] = sinf(0.01f * i);

    float *dH, *dP, *dW, *dS;
    CHECK(cudaMalloc(&dH, n * n * sizeof(float)));
    CHECK(cudaMalloc(&dP, n * k * sizeof(float)));
    CHECK(cudaMalloc(&dW, n * k * sizeof(float)));
    CHECK(cudaMalloc(&dS, k * k * sizeof(float)));
    CHECK(cudaMemcpy(dH, H.data(), n * n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dP, P.data(), n * k * sizeof(float), cudaMemcpyHostToDevice));

    dim3 threads(16, 16);
    dim3 grid1((k + 15) / 16, (n + 15) / 16);
    apply_operator<<<grid1, threads>>>(dH, dP, dW, n, k);
    CHECK(cudaGetLastError());

    dim3 grid2((k + 15) / 16, (k + 15) / 16);
    project_left<<<grid2, threads>>>(dP, dW, dS, n, k);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(S.data(), dS, k * k * sizeof(float), cudaMemcpyDeviceToHost));

    double asym = 0.0;
    for (int i = 0; i < k; ++i)
        for (int j = 0; j < k; ++j)
            asym = fmax(asym, fabs(S[i * k + j] - S[j * k + i]));
    printf("S[0][0] = %f, max asymmetry = %g\n", S[0], asym);

    cudaFree(dH); cudaFree(dP); cudaFree(dW); cudaFree(dS);
    return 0;
}
