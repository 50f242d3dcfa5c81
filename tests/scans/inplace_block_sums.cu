// Inclusive scan of each block in place (Hillis-Steele, a register between the read and the write),
// the block's total stored for the second pass of a multi-block scan.
#define BLOCK_SIZE 256

__global__ void scan_inclusive(const float* in, float* out, float* block_sums, int n) {
  __shared__ float s[BLOCK_SIZE];
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = gid < n ? in[gid] : 0.0f;
  __syncthreads();
  for (int stride = 1; stride < blockDim.x; stride <<= 1) {
    float v = 0.0f;
    if (threadIdx.x >= stride) v = s[threadIdx.x - stride];
    __syncthreads();
    s[threadIdx.x] += v;
    __syncthreads();
  }
  if (gid < n) out[gid] = s[threadIdx.x];
  if (threadIdx.x == blockDim.x - 1) block_sums[blockIdx.x] = s[threadIdx.x];
}
