// Inclusive scan in three kernels: each block scans its 512 values (Hillis-Steele, double-buffered
// shared memory) and writes its total; one block scans the totals; each block adds its offset.
#define BLOCK 512

__global__ void scan_blocks(int* out, const int* inp, int* sums, int n) {
  __shared__ int buf[2][BLOCK];
  int tid = threadIdx.x;
  int i = blockIdx.x * BLOCK + tid;
  int pout = 0, pin = 1;
  buf[pout][tid] = (i < n) ? inp[i] : 0;
  __syncthreads();
  for (int offset = 1; offset < BLOCK; offset *= 2) {
    pout = 1 - pout;
    pin = 1 - pout;
    if (tid >= offset)
      buf[pout][tid] = buf[pin][tid] + buf[pin][tid - offset];
    else
      buf[pout][tid] = buf[pin][tid];
    __syncthreads();
  }
  if (i < n) out[i] = buf[pout][tid];
  if (tid == BLOCK - 1) sums[blockIdx.x] = buf[pout][tid];
}

// one block: the totals BLOCK at a time, each chunk scanned like a block and shifted by the carry
__global__ void scan_sums(int* sums, int m) {
  __shared__ int buf[2][BLOCK];
  __shared__ int carry;
  int tid = threadIdx.x;
  if (tid == 0) carry = 0;
  __syncthreads();
  for (int base = 0; base < m; base += BLOCK) {
    int pout = 0, pin = 1;
    buf[pout][tid] = (base + tid < m) ? sums[base + tid] : 0;
    __syncthreads();
    for (int offset = 1; offset < BLOCK; offset *= 2) {
      pout = 1 - pout;
      pin = 1 - pout;
      if (tid >= offset)
        buf[pout][tid] = buf[pin][tid] + buf[pin][tid - offset];
      else
        buf[pout][tid] = buf[pin][tid];
      __syncthreads();
    }
    if (base + tid < m) sums[base + tid] = buf[pout][tid] + carry;
    __syncthreads();
    if (tid == BLOCK - 1) carry += buf[pout][tid];
    __syncthreads();
  }
}

__global__ void add_offsets(int* out, const int* sums, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (blockIdx.x > 0 && i < n) out[i] += sums[blockIdx.x - 1];
}
