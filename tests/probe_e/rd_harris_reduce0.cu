// style: cuda-samples reduction reduce0 (Harris: interleaved addressing with tid % (2*s), templated T, dynamic shared)
// launch: grid cdiv(n, 256) block 256 shared 256 * sizeof(float)
// sizes: n=100003
// template: float
// expect: block-tree|block-atomic
#include <cuda_runtime.h>

template <class T>
__global__ void reduce0(T *g_idata, T *g_odata, unsigned int n) {
  extern __shared__ unsigned char smem_raw[];
  T *sdata = reinterpret_cast<T *>(smem_raw);

  // load shared mem
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

  sdata[tid] = (i < n) ? g_idata[i] : 0;

  __syncthreads();

  // do reduction in shared mem
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    // modulo arithmetic is slow!
    if ((tid % (2 * s)) == 0) {
      sdata[tid] += sdata[tid + s];
    }

    __syncthreads();
  }

  // write result for this block to global mem
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

template __global__ void reduce0<float>(float *, float *, unsigned int);

void reduce_launch(int size, int threads, int blocks, float *d_idata, float *d_odata) {
  dim3 dimBlock(threads, 1, 1);
  dim3 dimGrid(blocks, 1, 1);
  int smemSize = threads * sizeof(float);
  reduce0<float><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size);
}
