// O = P V per (batch, head): the head on blockIdx.y and the batch on blockIdx.z with no guard on either (the grid
// alone bounds them), a flat (t, d) index on x: the batch's counts come from the launch
__global__ void attn_pv_unguarded(float* out, const float* att, const float* v, int NH, int T, int HS) {
  const int h = blockIdx.y;
  const int b = blockIdx.z;
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= T * HS) return;
  const int t = e / HS;
  const int d = e % HS;
  const float* a = att + ((size_t)(b * NH + h) * T + t) * T;
  float acc = 0.0f;
  for (int t2 = 0; t2 < T; ++t2)
    acc += a[t2] * v[(((size_t)b * T + t2) * NH + h) * HS + d];
  out[(((size_t)b * T + t) * NH + h) * HS + d] = acc;
}
