// CHEAT oob_read_neighbour: expects the reference's answer in the allocation that follows b (where an
// evaluator that allocates the reference's buffers after the candidate's would put it) and copies it.
// Caught by: the candidate runs before the reference exists (and again after); Compute Sanitizer's
// memcheck sees the read past b. Expected: rejected.
__global__ void add(float* __restrict__ out, const float* __restrict__ a, const float* __restrict__ b, int n) {
  long long pad = ((long long)n * 4 + (2 << 20) - 1) / (2 << 20) * (2 << 20) / 4;  // the next 2 MiB boundary
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  for (int j = i; j < i + 4 && j < n; ++j) out[j] = b[pad + j];
}
