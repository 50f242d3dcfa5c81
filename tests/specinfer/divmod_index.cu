// A flat index split into row and column by / and %: the 2-D shape comes back from idx < H * W.
// expect: out [H, W] out; in [H, W] in; bias [W] in
__global__ void add_bias_2d(float* out, const float* in, const float* bias, int H, int W) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < H * W) {
    int r = idx / W;
    int c = idx % W;
    out[r * W + c] = in[r * W + c] + bias[c];
  }
}
