// launch: grid cdiv(n, 512) block 512 shared 4096
// sizes: n=100000
// expect: block-scan
// Hillis-Steele scan within each block, double-buffered shared memory
__global__ void scan_blocks(const float* in, float* out, int n) {
  extern __shared__ float temp[];
  int tid = threadIdx.x;
  int gid = blockIdx.x * blockDim.x + tid;
  int pout = 0, pin = 1;
  temp[tid] = gid < n ? in[gid] : 0.0f;
  __syncthreads();
  for (int offset = 1; offset < blockDim.x; offset *= 2) {
    pout = 1 - pout;
    pin = 1 - pout;
    if (tid >= offset) temp[pout * blockDim.x + tid] = temp[pin * blockDim.x + tid] + temp[pin * blockDim.x + tid - offset];
    else temp[pout * blockDim.x + tid] = temp[pin * blockDim.x + tid];
    __syncthreads();
  }
  if (gid < n) out[gid] = temp[pout * blockDim.x + tid];
}
