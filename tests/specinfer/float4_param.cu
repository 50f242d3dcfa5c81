// A float4 pointer parameter: the spec's shape gets a trailing dimension of 4.
// expect: out [n, 4] out; in [n, 4] in
__global__ void norm4(float4* out, const float4* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 v = in[i];
  float r = rsqrtf(v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w + 1e-6f);
  out[i] = make_float4(v.x * r, v.y * r, v.z * r, v.w * r);
}
