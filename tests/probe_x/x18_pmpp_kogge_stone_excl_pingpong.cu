// style: PMPP Kogge-Stone spelling (SECTION_SIZE, XY arrays, X/Y/InputSize/S names, `for (unsigned int stride = 1; ...)`) turned exclusive by loading X[i-1] with thread 0 taking the identity, double-buffered through two static shared arrays whose pointers XY_in/XY_out are swapped each step (one __syncthreads per step), int data, block sum S[] = last exclusive value + last input
// launch: grid cdiv(InputSize, 256) block 256
// sizes: InputSize=2999
// expect: block-scan|scan-library|row-scan
#include <cuda_runtime.h>

#define SECTION_SIZE 256

__global__ void Kogge_Stone_exclusive_scan_kernel(int *X, int *Y, int InputSize, int *S)
{
    __shared__ int XY_a[SECTION_SIZE];
    __shared__ int XY_b[SECTION_SIZE];
    int *XY_in = XY_a;
    int *XY_out = XY_b;

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < InputSize && threadIdx.x != 0) {
        XY_in[threadIdx.x] = X[i - 1];
    } else {
        XY_in[threadIdx.x] = 0;
    }

    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        __syncthreads();
        if (threadIdx.x >= stride)
            XY_out[threadIdx.x] = XY_in[threadIdx.x] + XY_in[threadIdx.x - stride];
        else
            XY_out[threadIdx.x] = XY_in[threadIdx.x];
        int *tmp = XY_in;
        XY_in = XY_out;
        XY_out = tmp;
    }

    if (i < InputSize) Y[i] = XY_in[threadIdx.x];

    if (threadIdx.x == blockDim.x - 1) {
        S[blockIdx.x] = XY_in[threadIdx.x] + ((i < InputSize) ? X[i] : 0);
    }
}
