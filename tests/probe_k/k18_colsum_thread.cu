// style: numpy-port helper "sum(axis=0)", one thread per column walking all rows with a size_t row counter, __restrict__ pointers, 1-D grid of 128-thread blocks
// launch: grid cdiv(N, 128) block 128
// sizes: M=329 N=1031
// expect: column
#include <cuda_runtime.h>

__global__ void sum_axis0(const float *__restrict__ A, float *__restrict__ y, int M, int N)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < N) {
        float s = 0.0f;
        for (size_t i = 0; i < (size_t)M; i++)
            s += A[i * N + j];
        y[j] = s;
    }
}
