// attention's P V with one block row per (batch, head) pair: `bh = blockIdx.y` split into the batch and the head,
// the probabilities read at bh itself, V and the output at (b, h): the tiles give bh back from the grid's z
__global__ void attn_pv_bh(float* out, const float* att, const float* v, int B, int NH, int T, int HS) {
  const int bh = blockIdx.y;
  const int b = bh / NH, h = bh % NH;
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (bh >= B * NH || e >= T * HS) return;
  const int t = e / HS, d = e % HS;
  float acc = 0.f;
  for (int t2 = 0; t2 < T; ++t2) acc += att[(bh * T + t) * T + t2] * v[((b * T + t2) * NH + h) * HS + d];
  out[((b * T + t) * NH + h) * HS + d] = acc;
}
