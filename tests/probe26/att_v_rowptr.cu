// launch: grid cdiv(HS, 32), T, B * NH block 32
// sizes: B=2 T=64 NH=4 HS=32
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// out[b, t, h, :] = sum_{t2 <= t} att[b, h, t, t2] * v[b, t2, h, :], row pointers
__global__ void att_v(float* out, const float* att, const float* v, int B, int T, int NH, int HS) {
  int d = blockIdx.x * blockDim.x + threadIdx.x;
  int t = blockIdx.y;
  int bh = blockIdx.z;
  int b = bh / NH, h = bh % NH;
  if (d >= HS) return;
  const float* att_row = att + ((size_t)bh * T + t) * T;
  float acc = 0.f;
  for (int t2 = 0; t2 <= t; t2++) {
    const float* v_row = v + ((size_t)b * T + t2) * NH * HS + h * HS;
    acc += att_row[t2] * v_row[d];
  }
  out[((size_t)b * T + t) * NH * HS + h * HS + d] = acc;
}
