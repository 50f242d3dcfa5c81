// style: SHOC Scan spelling - scanLocalMem<T, blockSize> device helper over a volatile shared buffer twice the block size whose lower half is zeroed so the Hillis-Steele read s_data[idx - i] never needs a bound check, read / __syncthreads / add / __syncthreads per step, returns the exclusive value s_data[idx - 1]; block totals written out and a second kernel (addUniform) adds the scanned block offsets; float data, tail padded with 0
// kernel: scan_local
// launch: grid cdiv(n, 256) block 256
// sizes: n=3999
// expect: block-scan|scan-library|row-scan
#include <cuda_runtime.h>

#define SCAN_BLOCK 256

template <class T, int blockSize>
__device__ T scanLocalMem(const T val, volatile T* s_data)
{
    // Shared mem is 2*blockSize in size. Set first half to zero so the
    // lookback s_data[idx - i] below never reads out of range.
    int idx = threadIdx.x;
    s_data[idx] = 0.0f;
    __syncthreads();

    // Set 2nd half to the input value
    idx += blockDim.x;
    T t;
    s_data[idx] = val;     __syncthreads();

    // Now, perform Kogge-Stone scan
    for (int i = 1; i < blockSize; i *= 2)
    {
        t = s_data[idx - i];  __syncthreads();
        s_data[idx] += t;     __syncthreads();
    }
    return s_data[idx-1];
}

__global__ void scan_local(const float* __restrict__ g_idata,
                           float* __restrict__ g_odata,
                           float* __restrict__ g_blockSums,
                           const int n)
{
    __shared__ float s_data[SCAN_BLOCK * 2];

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float val = (i < n) ? g_idata[i] : 0.0f;

    float res = scanLocalMem<float, SCAN_BLOCK>(val, s_data);

    if (i < n)
    {
        g_odata[i] = res;
    }
    // last thread writes the inclusive total of the block
    if (threadIdx.x == blockDim.x - 1)
    {
        g_blockSums[blockIdx.x] = res + val;
    }
}

// g_blockOffsets holds the exclusive scan of g_blockSums
__global__ void addUniform(float* __restrict__ g_odata,
                           const float* __restrict__ g_blockOffsets,
                           const int n)
{
    __shared__ float uni;
    if (threadIdx.x == 0)
    {
        uni = g_blockOffsets[blockIdx.x];
    }
    __syncthreads();

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
    {
        g_odata[i] += uni;
    }
}
