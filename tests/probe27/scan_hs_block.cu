// launch: grid cdiv(n, 256) block 256
// sizes: n=100000
// expect: block-scan
// per-block inclusive Hillis-Steele scan, double buffer indices pout/pin
__global__ void scan_block(float* g_odata, const float* g_idata, float* sums, int n) {
  __shared__ float temp[2 * 256];
  int thid = threadIdx.x;
  int gid = blockIdx.x * blockDim.x + thid;
  int pout = 0, pin = 1;
  temp[pout * 256 + thid] = gid < n ? g_idata[gid] : 0.0f;
  __syncthreads();
  for (int offset = 1; offset < 256; offset *= 2) {
    pout = 1 - pout;
    pin = 1 - pout;
    if (thid >= offset) temp[pout * 256 + thid] = temp[pin * 256 + thid] + temp[pin * 256 + thid - offset];
    else temp[pout * 256 + thid] = temp[pin * 256 + thid];
    __syncthreads();
  }
  if (gid < n) g_odata[gid] = temp[pout * 256 + thid];
  if (thid == 255) sums[blockIdx.x] = temp[pout * 256 + thid];
}
