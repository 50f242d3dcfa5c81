// launch: grid cdiv(B * N * H * D, 256) block 256
// sizes: B=2 N=50 H=4 D=24
// expect: transpose-tile|gather
// (B, N, H, D) -> (B, H, N, D), one thread per input element
__global__ void permute0213(const float* in, float* out, int B, int N, int H, int D) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= B * N * H * D) return;
  int d = idx % D;
  int h = (idx / D) % H;
  int n = (idx / (D * H)) % N;
  int b = idx / (D * H * N);
  out[((b * H + h) * N + n) * D + d] = in[idx];
}
