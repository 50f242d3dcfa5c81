// launch: grid cdiv(HS, 32), cdiv(T, 8), NH block 32, 8
// sizes: NH=3 T=100 HS=32
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// att @ V with the causal mask as a break out of the k loop
__global__ void att_v_break(const float* att, const float* v, float* out, int NH, int T, int HS) {
  int h = blockIdx.z;
  int t = blockIdx.y * blockDim.y + threadIdx.y;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= T || i >= HS) return;
  float acc = 0.f;
  for (int t2 = 0; t2 < T; ++t2) {
    if (t2 > t) break;
    acc += att[(h * T + t) * T + t2] * v[(h * T + t2) * HS + i];
  }
  out[(h * T + t) * HS + i] = acc;
}
