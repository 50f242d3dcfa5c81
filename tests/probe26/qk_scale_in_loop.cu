// launch: grid cdiv(T, 16), cdiv(T, 16), H block 16, 16
// sizes: H=4 T=100 D=32
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
__global__ void scores(const float* Q, const float* Kt, float* S, int H, int T, int D) {
  int h = blockIdx.z;
  int t1 = blockIdx.y * blockDim.y + threadIdx.y;
  int t2 = blockIdx.x * blockDim.x + threadIdx.x;
  if (t1 >= T || t2 >= T) return;
  const float scale = rsqrtf((float)D);
  float dot = 0.f;
  for (int d = 0; d < D; ++d) dot += Q[(h * T + t1) * D + d] * Kt[(h * T + t2) * D + d] * scale;
  S[(h * T + t1) * T + t2] = dot;
}
