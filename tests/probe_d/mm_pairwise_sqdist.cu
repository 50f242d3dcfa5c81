// launch: grid cdiv(nx, 16), cdiv(ny, 16) block 16, 16
// sizes: nx=350 ny=270 dim=96
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
// Pairwise squared Euclidean distances D[i][j] = sum_k (X[i][k]-Y[j][k])^2 (kNN / RBF-kernel style), x index on rows of D
#include <cuda_runtime.h>
#include <cstdio>

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
    }                                                                      \
  } while (0)

__global__ void pairwise_sqdist_kernel(const float* __restrict__ X,
                                       const float* __restrict__ Y,
                                       float* __restrict__ D,
                                       int nx, int ny, int dim)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;   // query point
    const int j = blockIdx.y * blockDim.y + threadIdx.y;   // reference point
    if (i >= nx || j >= ny) return;

    const float* xi = X + (size_t)i * dim;
    const float* yj = Y + (size_t)j * dim;
    float acc = 0.f;
    #pragma unroll 4
    for (int k = 0; k < dim; ++k) {
        float d = xi[k] - yj[k];
        acc += d * d;
    }
    D[(size_t)i * ny + j] = acc;
}

// Host-side launcher: X is nx x dim, Y is ny x dim, D is nx x ny (all row-major, device pointers)
void pairwise_sqdist(const float* X, const float* Y, float* D,
                     int nx, int ny, int dim, cudaStream_t stream = 0)
{
    dim3 block(16, 16);
    dim3 grid((nx + block.x - 1) / block.x, (ny + block.y - 1) / block.y);
    pairwise_sqdist_kernel<<<grid, block, 0, stream>>>(X, Y, D, nx, ny, dim);
    CUDA_CHECK(cudaGetLastError());
}
