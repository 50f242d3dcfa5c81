// A step that adds the neighbour only where the value is positive (a select on the data in the phase): not a sum
// of fixed offsets (the prologue's select of a predicate, `in[i] > t ? 1 : 0`, is fine: it only fills the array).
__global__ void clipped_scan(const int* in, int* out, int n) {
  __shared__ int s[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * 256 + tid;
  s[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (int off = 1; off < 256; off *= 2) {
    int v = (tid >= off && s[tid] > 0) ? s[tid] + s[tid - off] : s[tid];
    __syncthreads();
    s[tid] = v;
    __syncthreads();
  }
  if (i < n) out[i] = s[tid];
}
