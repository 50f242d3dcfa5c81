// launch: grid cdiv(n, 256) block 256
// sizes: n=1000000
// expect: block-tree|block-atomic
// dot product: shared-memory tree then one atomic per block
__global__ void dot(const float* a, const float* b, float* result, int n) {
  __shared__ float cache[256];
  int tid = threadIdx.x + blockIdx.x * blockDim.x;
  float temp = 0;
  while (tid < n) {
    temp += a[tid] * b[tid];
    tid += blockDim.x * gridDim.x;
  }
  cache[threadIdx.x] = temp;
  __syncthreads();
  int i = blockDim.x / 2;
  while (i != 0) {
    if (threadIdx.x < i) cache[threadIdx.x] += cache[threadIdx.x + i];
    __syncthreads();
    i /= 2;
  }
  if (threadIdx.x == 0) atomicAdd(result, cache[0]);
}
