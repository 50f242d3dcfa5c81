// The Hillis-Steele shape with a difference instead of a sum: not a scan.
__global__ void diff_steps(const int* in, int* out, int n) {
  __shared__ int buf[2][128];
  int tid = threadIdx.x;
  int i = blockIdx.x * 128 + tid;
  int pout = 0, pin = 1;
  buf[pout][tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (int offset = 1; offset < 128; offset *= 2) {
    pout = 1 - pout;
    pin = 1 - pout;
    buf[pout][tid] = tid >= offset ? buf[pin][tid] - buf[pin][tid - offset] : buf[pin][tid];
    __syncthreads();
  }
  if (i < n) out[i] = buf[pout][tid];
}
