// style: CFD-course 3-D Laplacian; __device__ __forceinline__ flat3() index helper called seven times, const int 3-D thread indices, one combined early-return boundary test, std::vector launcher
// launch: grid cdiv(nx, 8), cdiv(ny, 8), cdiv(nz, 4) block 8, 8, 4
// sizes: nx=37 ny=29 nz=23 inv_h2=0.25
// expect: stencil-march|stencil-tile
#include <cuda_runtime.h>
#include <vector>

__device__ __forceinline__ int flat3(int i, int j, int k, int nx, int ny)
{
    return (k * ny + j) * nx + i;
}

__global__ void laplacian7(const float* __restrict__ u, float* __restrict__ lap,
                           int nx, int ny, int nz, float inv_h2)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    const int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i < 1 || j < 1 || k < 1 || i > nx - 2 || j > ny - 2 || k > nz - 2) return;

    const int c = flat3(i, j, k, nx, ny);
    float s = u[flat3(i - 1, j, k, nx, ny)] + u[flat3(i + 1, j, k, nx, ny)]
            + u[flat3(i, j - 1, k, nx, ny)] + u[flat3(i, j + 1, k, nx, ny)]
            + u[flat3(i, j, k - 1, nx, ny)] + u[flat3(i, j, k + 1, nx, ny)];
    lap[c] = (s - 6.0f * u[c]) * inv_h2;
}

// h_lap must already hold nx*ny*nz elements; boundary cells come back as 0.
void run_laplacian(const std::vector<float>& h_u, std::vector<float>& h_lap,
                   int nx, int ny, int nz, float h)
{
    size_t bytes = sizeof(float) * (size_t)nx * ny * nz;
    float *d_u = nullptr, *d_lap = nullptr;
    cudaMalloc(&d_u, bytes);
    cudaMalloc(&d_lap, bytes);
    cudaMemcpy(d_u, h_u.data(), bytes, cudaMemcpyHostToDevice);
    cudaMemset(d_lap, 0, bytes);

    dim3 block(8, 8, 4);
    dim3 grid((nx + block.x - 1) / block.x,
              (ny + block.y - 1) / block.y,
              (nz + block.z - 1) / block.z);
    laplacian7<<<grid, block>>>(d_u, d_lap, nx, ny, nz, 1.0f / (h * h));

    cudaMemcpy(h_lap.data(), d_lap, bytes, cudaMemcpyDeviceToHost);
    cudaFree(d_u);
    cudaFree(d_lap);
}
