// launch: grid cdiv(n, 256) block 256 shared 256*4
// sizes: n=100000
// expect: block-tree
// CUDA samples reduction, kernel 1 (cooperative groups): interleaved addressing, contiguous threads
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void reduce1(float *g_idata, float *g_odata, unsigned int n) {
  cg::thread_block cta = cg::this_thread_block();
  extern __shared__ float sdata[];

  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

  sdata[tid] = (i < n) ? g_idata[i] : 0;

  cg::sync(cta);

  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    int index = 2 * s * tid;

    if (index < blockDim.x) {
      sdata[index] += sdata[index + s];
    }

    cg::sync(cta);
  }

  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
