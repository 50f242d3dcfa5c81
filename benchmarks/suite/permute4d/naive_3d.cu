// (B, N, H, d) -> (B, H, N, d) on a 3-D grid: z the batch, y the position, x the head's features.
__global__ void permute4d(float* out, const float* inp, int B, int N, int H, int d) {
  int b = blockIdx.z;
  int n = blockIdx.y;
  int hk = blockIdx.x * blockDim.x + threadIdx.x;
  if (hk < H * d) {
    int h = hk / d, k = hk % d;
    size_t src = ((size_t)(b * N + n) * H) * d + hk;
    size_t dst = ((size_t)(b * H + h) * N + n) * d + k;
    out[dst] = inp[src];
  }
}
