// 3x3 convolution over a flat index: the nine taps written out, each guarded by a ternary.
__global__ void conv3x3(float* out, const float* inp, int H, int W) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < H * W) {
    int r = idx / W;
    int c = idx % W;
    bool up = r > 0, down = r < H - 1, left = c > 0, right = c < W - 1;
    float v = 0.0625f * (up && left ? inp[idx - W - 1] : 0.0f)
            + 0.125f * (up ? inp[idx - W] : 0.0f)
            - 0.0625f * (up && right ? inp[idx - W + 1] : 0.0f)
            + 0.25f * (left ? inp[idx - 1] : 0.0f)
            + 0.5f * inp[idx]
            + 0.125f * (right ? inp[idx + 1] : 0.0f)
            - 0.125f * (down && left ? inp[idx + W - 1] : 0.0f)
            + 0.25f * (down ? inp[idx + W] : 0.0f)
            + 0.0625f * (down && right ? inp[idx + W + 1] : 0.0f);
    out[idx] = v;
  }
}
