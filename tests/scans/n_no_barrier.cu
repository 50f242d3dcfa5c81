// An in-place Hillis-Steele step with no barrier between a thread's read and its neighbour's write.
__global__ void scan_racy(const float* in, float* out, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int d = 1; d < blockDim.x; d *= 2) {
    if (threadIdx.x >= d) s[threadIdx.x] += s[threadIdx.x - d];
    __syncthreads();
  }
  if (i < n) out[i] = s[threadIdx.x];
}
