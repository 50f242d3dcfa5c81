// a 5-point stencil whose centre weight is read from another array into a local before the store
__global__ void wst(float* out, const float* inp, const float* w, int H, int W) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > 0 && i < H - 1 && j > 0 && j < W - 1) {
    float c = w[0];
    out[i * W + j] = c * inp[i * W + j] +
                     0.1f * (inp[(i - 1) * W + j] + inp[(i + 1) * W + j] + inp[i * W + j - 1] + inp[i * W + j + 1]);
  }
}
