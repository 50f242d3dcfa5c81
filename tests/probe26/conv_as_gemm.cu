// launch: grid cdiv(HW, 64), OC block 64
// sizes: OC=64 IC=32 HW=1024
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// a 1x1 convolution: out[oc, p] = sum_ic w[oc, ic] * in[ic, p]
__global__ void conv1x1(const float* w, const float* in, float* out, int OC, int IC, int HW) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  int oc = blockIdx.y;
  if (p >= HW) return;
  float acc = 0.f;
  for (int ic = 0; ic < IC; ++ic) acc += w[oc * IC + ic] * in[ic * HW + p];
  out[oc * HW + p] = acc;
}
