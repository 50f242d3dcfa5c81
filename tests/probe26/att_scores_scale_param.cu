// launch: grid cdiv(T, 16), cdiv(T, 16), B * NH block 16, 16
// sizes: B=2 NH=3 T=40 HS=32
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
// attention scores: q k^T / sqrt(hs), q and k as (B, NH, T, HS)
__global__ void attn_scores(const float* q, const float* k, float* att, int B, int NH, int T, int HS) {
  int bh = blockIdx.z;
  int t1 = blockIdx.y * blockDim.y + threadIdx.y;
  int t2 = blockIdx.x * blockDim.x + threadIdx.x;
  if (t1 >= T || t2 >= T) return;
  const float* qr = q + ((size_t)bh * T + t1) * HS;
  const float* kr = k + ((size_t)bh * T + t2) * HS;
  float dot = 0.f;
  for (int h = 0; h < HS; h++) dot += qr[h] * kr[h];
  att[((size_t)bh * T + t1) * T + t2] = dot * rsqrtf((float)HS);
}
