// b_low_occupancy.cu -- apply a tabulated activation: a 32 KB lookup table (8192 floats) is
// staged in shared memory per block, then each thread interpolates its elements in it.
// Defect: blocks of 64 threads. Each block holds its own 33 KB of shared memory, so only 6
// blocks (12 warps of 64) fit on an SM: 18.8 % theoretical occupancy, too few warps to
// hide the global-memory latency.
// Found by: low-occupancy (kernelpro.profilers.rules.occupancy_rule).
// Fixed twin: b_low_occupancy_fixed.cu (256 threads per block share the same table: 6
// blocks of 8 warps, 75 %).
#define TABLE 8192

__global__ void lut_activation(const float* __restrict__ x, const float* __restrict__ table,
                               float* __restrict__ y, int n, float lo, float scale) {
  __shared__ float t[TABLE];
  for (int i = threadIdx.x; i < TABLE; i += blockDim.x) t[i] = table[i];
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float u = fminf(fmaxf((x[i] - lo) * scale, 0.f), TABLE - 1.001f);
    int j = (int)u;
    float f = u - j;
    y[i] = fmaf(f, t[j + 1] - t[j], t[j]);
  }
}

void launch_lut_activation(const float* x, const float* table, float* y, int n, float lo, float scale) {
  lut_activation<<<1024, 64>>>(x, table, y, n, lo, scale);
}
