// launch: grid cdiv(H * W, 256), C, B block 256
// sizes: B=2 C=33 H=20 W=17
// expect: transpose-tile|gather
// NCHW -> NHWC with the channel on blockIdx.y and the batch on blockIdx.z
__global__ void nchw2nhwc(const float* in, float* out, int B, int C, int H, int W) {
  int hw = blockIdx.x * blockDim.x + threadIdx.x;
  int c = blockIdx.y, b = blockIdx.z;
  if (hw >= H * W) return;
  out[((size_t)b * H * W + hw) * C + c] = in[((size_t)b * C + c) * H * W + hw];
}
