// Inclusive scan in three kernels: a work-efficient (Blelloch) scan of 512 values per block, two per
// thread (up-sweep, the total taken out, down-sweep: an exclusive scan, the input added back); one
// thread scans the block totals; each block adds the totals before it.
#define THREADS 256
#define ELEMS (2 * THREADS)

__global__ void prescan(int* out, const int* inp, int* sums, int n) {
  __shared__ int temp[ELEMS];
  int tid = threadIdx.x;
  int base = blockIdx.x * ELEMS;
  int a = base + 2 * tid, b = base + 2 * tid + 1;
  int xa = a < n ? inp[a] : 0;
  int xb = b < n ? inp[b] : 0;
  temp[2 * tid] = xa;
  temp[2 * tid + 1] = xb;
  int offset = 1;
  for (int d = ELEMS >> 1; d > 0; d >>= 1) {  // up-sweep
    __syncthreads();
    if (tid < d) {
      int ai = offset * (2 * tid + 1) - 1;
      int bi = offset * (2 * tid + 2) - 1;
      temp[bi] += temp[ai];
    }
    offset *= 2;
  }
  if (tid == 0) {
    sums[blockIdx.x] = temp[ELEMS - 1];
    temp[ELEMS - 1] = 0;
  }
  for (int d = 1; d < ELEMS; d *= 2) {  // down-sweep
    offset >>= 1;
    __syncthreads();
    if (tid < d) {
      int ai = offset * (2 * tid + 1) - 1;
      int bi = offset * (2 * tid + 2) - 1;
      int t = temp[ai];
      temp[ai] = temp[bi];
      temp[bi] += t;
    }
  }
  __syncthreads();
  if (a < n) out[a] = temp[2 * tid] + xa;
  if (b < n) out[b] = temp[2 * tid + 1] + xb;
}

__global__ void serial_sums(int* sums, int m) {
  for (int i = 1; i < m; i++) sums[i] += sums[i - 1];
}

__global__ void add_block_sums(int* out, const int* sums, int n) {
  if (blockIdx.x == 0) return;
  int add = sums[blockIdx.x - 1];
  int base = blockIdx.x * ELEMS;
  for (int i = base + threadIdx.x; i < base + ELEMS && i < n; i += blockDim.x) out[i] += add;
}
