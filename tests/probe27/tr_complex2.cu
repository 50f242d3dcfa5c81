// launch: grid cdiv(n, 16), cdiv(m, 16) block 16, 16
// sizes: m=700 n=1000
// expect: transpose-tile
// a transpose of float2 elements (complex numbers)
__global__ void transpose_c(float2* out, const float2* in, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < m && j < n) out[j * m + i] = in[i * n + j];
}
