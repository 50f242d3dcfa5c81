// Warp divergence: odd and even lanes of every warp take different heavy branches, so each
// warp runs both paths one after the other (half its threads idle in each).
// Found on the GPU by the dynamic rule warp-divergence (Nsight Compute: threads per
// instruction executed well under 32). Fix: branch on a warp-uniform value (e.g. the warp
// index, threadIdx.x / 32) or make both paths one arithmetic sequence.
__global__ void split_poly(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  float r = 0.f;
  if (threadIdx.x % 2 == 0) {
    for (int k = 0; k < 64; ++k) r = r * v + 1.0f / (k + 1);
  } else {
    for (int k = 0; k < 64; ++k) r = r * v - 1.0f / (k + 2);
  }
  y[i] = r;
}

void launch_split_poly(const float* x, float* y, int n) {
  split_poly<<<(n + 255) / 256, 256>>>(x, y, n);
}
