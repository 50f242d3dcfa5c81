// Latency-bound: each row is a dependent chain (every step needs the previous result), and
// a launch of a few hundred rows leaves most of the GPU idle while each thread waits on its
// own loads. Neither the memory system nor the arithmetic units come near their peaks.
// Found on the GPU by the roofline verdict (latency-bound) and the dynamic rules
// achieved-occupancy (waves per SM, few warps) and warp-stall (long scoreboard).
// Fix: more independent work per SM (split each row's chain into segments and combine,
// a parallel scan), or process several rows per thread with independent chains.
__global__ void row_recurrence(const float* __restrict__ a, float* __restrict__ out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.f;
  for (int c = 0; c < cols; ++c) {
    s = s * 0.5f + a[(size_t)c * rows + r];
    out[(size_t)c * rows + r] = s;
  }
}

void launch_row_recurrence(const float* a, float* out, int rows, int cols) {
  row_recurrence<<<(rows + 127) / 128, 128>>>(a, out, rows, cols);
}
