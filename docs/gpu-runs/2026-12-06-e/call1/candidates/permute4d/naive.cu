// launch: {"grid": ["cdiv(B * H * N * d, 256)"], "block": [256]}
// (B, N, H, d) -> (B, H, N, d): one thread per output element, its coordinates from the flat index.
__global__ void permute4d(float* out, const float* inp, int B, int N, int H, int d) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < B * H * N * d) {
    int b = idx / (H * N * d);
    int rest = idx % (H * N * d);
    int h = rest / (N * d);
    rest = rest % (N * d);
    int n = rest / d;
    int k = rest % d;
    out[idx] = inp[((b * N + n) * H + h) * d + k];
  }
}
