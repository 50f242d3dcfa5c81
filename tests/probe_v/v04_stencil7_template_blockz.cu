// style: C++ header-only solver library; 7-point smoother templated on the element type with explicit instantiations for float and double, z from blockIdx.z/threadIdx.z, I3() linearisation macro with size_t, literal weights T(0.5)/T(1.0/12), interior by lower-bound guards and boundary cells copied in the else branch
// launch: grid cdiv(nx, 8), cdiv(ny, 8), cdiv(nz, 4) block 8, 8, 4
// sizes: nx=37 ny=29 nz=23
// expect: stencil-tile|stencil-window|stencil-march
#include <cstddef>
#include <cuda_runtime.h>

#define I3(i, j, k) (((size_t)(k) * ny + (j)) * nx + (i))

template <typename T>
__global__ void smooth7(const T *__restrict__ in, T *__restrict__ out, int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i >= nx || j >= ny || k >= nz) return;

    if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1 && k > 0 && k < nz - 1) {
        T nb = in[I3(i - 1, j, k)] + in[I3(i + 1, j, k)]
             + in[I3(i, j - 1, k)] + in[I3(i, j + 1, k)]
             + in[I3(i, j, k - 1)] + in[I3(i, j, k + 1)];
        out[I3(i, j, k)] = T(0.5) * in[I3(i, j, k)] + T(1.0 / 12.0) * nb;
    } else {
        out[I3(i, j, k)] = in[I3(i, j, k)];
    }
}

template __global__ void smooth7<float>(const float *__restrict__, float *__restrict__, int, int, int);
template __global__ void smooth7<double>(const double *__restrict__, double *__restrict__, int, int, int);
