// launch: grid 1 block 512 shared 1024*4
// sizes: n=512
// expect: block-scan
// Hillis-Steele inclusive scan in one block, double buffer through pout/pin flags (GPU Gems 3, 39-1 style)
__global__ void scan_hs(float* g_odata, const float* g_idata, int n) {
  extern __shared__ float temp[];
  int thid = threadIdx.x;
  int pout = 0, pin = 1;
  temp[pout * n + thid] = g_idata[thid];
  __syncthreads();
  for (int offset = 1; offset < n; offset *= 2) {
    pout = 1 - pout;
    pin = 1 - pout;
    if (thid >= offset)
      temp[pout * n + thid] = temp[pin * n + thid] + temp[pin * n + thid - offset];
    else
      temp[pout * n + thid] = temp[pin * n + thid];
    __syncthreads();
  }
  g_odata[thid] = temp[pout * n + thid];
}
