// Jacobi sweep for the 7-point Poisson stencil on a 3-D grid of threads (doubles), a thread per point
__global__ void jacobi7(const double* __restrict__ x, const double* __restrict__ b, double* __restrict__ xnew,
                        int n, double h2)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    const int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1 && k >= 1 && k < n - 1) {
        const int id = i + n * (j + n * k);
        xnew[id] = (x[id - 1] + x[id + 1] + x[id - n] + x[id + n] + x[id - n * n] + x[id + n * n]
                    - h2 * b[id]) / 6.0;
    }
}
