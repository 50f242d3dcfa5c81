// NCHW -> NHWC with the channel on blockIdx.y and the batch on blockIdx.z: 1-D blocks along H * W
__global__ void nchw_to_nhwc(const float* in, float* out, int N, int Cc, int HW) {
  int hw = blockIdx.x * blockDim.x + threadIdx.x;
  int c = blockIdx.y, n = blockIdx.z;
  if (hw >= HW) return;
  out[((size_t)n * HW + hw) * Cc + c] = in[((size_t)n * Cc + c) * HW + hw];
}
