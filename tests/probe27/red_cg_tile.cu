// launch: grid cdiv(n, 256) block 256
// sizes: n=123457
// expect: block-tree|block-atomic
// a sum with a shared-memory tree and one atomicAdd per block, barriers through cooperative groups
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void sum_cg(const float* in, float* out, int n) {
  cg::thread_block cta = cg::this_thread_block();
  __shared__ float s[256];
  unsigned int t = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + t;
  s[t] = (i < n) ? in[i] : 0.0f;
  cg::sync(cta);
  for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    cg::sync(cta);
  }
  if (t == 0) atomicAdd(out, s[0]);
}
