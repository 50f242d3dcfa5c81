// launch: grid cdiv(B * N * H * D, 256) block 256
// sizes: B=2 N=64 H=4 D=32
// expect: transpose-tile|gather
// (B, H, N, D) -> (B, N, H, D): heads back into the sequence (after attention)
__global__ void unpermute_heads(const float* in, float* out, int B, int N, int H, int D) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= B * N * H * D) return;
  int d = idx % D;
  int h = (idx / D) % H;
  int n = (idx / (D * H)) % N;
  int b = idx / (D * H * N);
  out[idx] = in[((b * H + h) * N + n) * D + d];
}
