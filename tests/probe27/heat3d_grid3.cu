// launch: grid cdiv(n, 16), cdiv(n, 8), cdiv(n, 4) block 16, 8, 4
// sizes: n=70
// expect: stencil-tile|stencil-march
/* PolyBench heat-3d written for a 3-D grid of threads */
#define A3(a, i, j, k) a[((i) * n + (j)) * n + (k)]

__global__ void heat3d_step(int n, const float* __restrict__ A, float* __restrict__ B)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int i = blockIdx.z * blockDim.z + threadIdx.z;
    if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1 && k >= 1 && k < n - 1) {
        A3(B, i, j, k) = 0.125f * (A3(A, i + 1, j, k) - 2.0f * A3(A, i, j, k) + A3(A, i - 1, j, k))
                       + 0.125f * (A3(A, i, j + 1, k) - 2.0f * A3(A, i, j, k) + A3(A, i, j - 1, k))
                       + 0.125f * (A3(A, i, j, k + 1) - 2.0f * A3(A, i, j, k) + A3(A, i, j, k - 1))
                       + A3(A, i, j, k);
    }
}
