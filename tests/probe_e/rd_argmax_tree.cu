// style: block argmax with value/index shared-memory tree (per-block candidates, second pass on host), host launcher
// launch: grid cdiv(n, 256) block 256
// sizes: n=100003
// expect: block-tree|block-atomic
#include <cfloat>
#include <cuda_runtime.h>

#define THREADS 256

__global__ void argmax_kernel(const float *x, float *blockMax, int *blockArg, int n)
{
    __shared__ float sval[THREADS];
    __shared__ int sidx[THREADS];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;

    sval[tid] = (i < n) ? x[i] : -FLT_MAX;
    sidx[tid] = (i < n) ? i : -1;
    __syncthreads();

    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            if (sval[tid + s] > sval[tid]) {
                sval[tid] = sval[tid + s];
                sidx[tid] = sidx[tid + s];
            }
        }
        __syncthreads();
    }
    if (tid == 0) {
        blockMax[blockIdx.x] = sval[0];
        blockArg[blockIdx.x] = sidx[0];
    }
}
