// launch: grid cdiv(C, 32), cdiv(R, 32), B block 32, 32
// sizes: B=4 R=300 C=200
// expect: transpose-tile
// (B, R, C) -> (B, C, R)
__global__ void btranspose(const float* in, float* out, int B, int R, int C) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int b = blockIdx.z;
  if (r < R && c < C) out[((size_t)b * C + c) * R + r] = in[((size_t)b * R + r) * C + c];
}
