// launch: grid cdiv(N, 256) block 256
// sizes: N=400000
// expect: block-tree|block-atomic
// grid-stride sum, __shfl_down_sync warp reduction, one atomicAdd per warp (NVIDIA blog "Faster Parallel Reductions on Kepler", deviceReduceWarpAtomicKernel)
#include <cuda_runtime.h>

__inline__ __device__
int warpReduceSum(int val) {
  for (int offset = warpSize/2; offset > 0; offset /= 2)
    val += __shfl_down_sync(0xffffffff, val, offset);
  return val;
}

__global__ void deviceReduceWarpAtomicKernel(int *in, int* out, int N) {
  int sum = int(0);
  for(int i = blockIdx.x * blockDim.x + threadIdx.x;
      i < N;
      i += blockDim.x * gridDim.x) {
    sum += in[i];
  }
  sum = warpReduceSum(sum);
  if ((threadIdx.x & (warpSize - 1)) == 0)
    atomicAdd(out, sum);
}

void deviceReduceWarpAtomic(int *in, int* out, int N) {
  int threads = 256;
  int blocks = (N + threads - 1) / threads;
  cudaMemsetAsync(out, 0, sizeof(int));
  deviceReduceWarpAtomicKernel<<<blocks, threads>>>(in, out, N);
}
