// launch: grid 1 block 1024 shared 4096
// sizes: n=1024
// expect: block-scan
// one block: an inclusive scan with a single shared buffer and two barriers per step
__global__ void scan1(const int* in, int* out, int n) {
  extern __shared__ int buf[];
  int t = threadIdx.x;
  buf[t] = t < n ? in[t] : 0;
  __syncthreads();
  for (int d = 1; d < blockDim.x; d <<= 1) {
    int add = t >= d ? buf[t - d] : 0;
    __syncthreads();
    buf[t] += add;
    __syncthreads();
  }
  if (t < n) out[t] = buf[t];
}
