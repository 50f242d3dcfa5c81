// (B, N, H, d) -> (B, H, N, d): one thread per input element, the coordinates peeled off one by one.
__global__ void permute4d(float* out, const float* inp, int B, int N, int H, int d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= B * N * H * d) return;
  int t = i;
  int k = t % d;
  t /= d;
  int h = t % H;
  t /= H;
  int n = t % N;
  t /= N;
  int b = t;
  out[b * H * N * d + h * N * d + n * d + k] = inp[i];
}
