// Steps whose distance comes from the data (a linked list's jump pointers): not a scan of fixed offsets.
__global__ void list_rank(const int* next, int* rank, int n) {
  __shared__ int nxt[256];
  __shared__ int r[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * 256 + tid;
  nxt[tid] = i < n ? next[i] : 0;
  r[tid] = 1;
  __syncthreads();
  for (int step = 1; step < 256; step *= 2) {
    int j = nxt[tid];
    int add = r[j];
    int jj = nxt[j];
    __syncthreads();
    r[tid] += add;
    nxt[tid] = jj;
    __syncthreads();
  }
  if (i < n) rank[i] = r[tid];
}
