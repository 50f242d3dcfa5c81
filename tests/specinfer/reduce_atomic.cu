// A block reduction in shared memory finished with one atomicAdd into a single sum.
// expect: in [n] in; sum [1] inout; block [256]
#define BLOCK 256

__global__ void reduce_sum(const float* in, float* sum, int n) {
  __shared__ float s[BLOCK];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int k = BLOCK / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, s[0]);
}
