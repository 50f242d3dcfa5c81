// Transpose over a flat index of the input: its row and column from a quotient and a remainder.
__global__ void transpose(float* out, const float* inp, int H, int W) {
  unsigned idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (unsigned)(H * W)) return;
  unsigned r = idx / W;
  unsigned c = idx % W;
  out[c * H + r] = inp[idx];
}
