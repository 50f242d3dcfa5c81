// Sum of an array: two values per thread on the load, sequential addressing in dynamic shared
// memory, one atomic per block.
__global__ void sum(float* out, const float* inp, int n) {
  extern __shared__ float sm[];
  int tid = threadIdx.x;
  int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  float v = 0.0f;
  if (i < n) v = inp[i];
  if (i + blockDim.x < n) v += inp[i + blockDim.x];
  sm[tid] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sm[tid] = sm[tid] + sm[tid + s];
    __syncthreads();
  }
  if (tid == 0) atomicAdd(out, sm[0]);
}
