// Outer product: a 2-D output from two vectors, x across columns and y across rows.
// expect: out [m, n] out; u [m] in; v [n] in
__global__ void outer(float* out, const float* u, const float* v, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < m && j < n) out[i * n + j] = u[i] * v[j];
}
