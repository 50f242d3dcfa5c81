// Four elements per thread through float4 loads, with a scalar tail: no host code.
// expect: x [n] in; y [n] out; grid [cdiv(n, 1024)]
__global__ void scale_vec4(const float* __restrict__ x, float* __restrict__ y, float s, int n) {
  int i = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
  if (i + 3 < n) {
    float4 v = reinterpret_cast<const float4*>(x)[i / 4];
    v.x *= s; v.y *= s; v.z *= s; v.w *= s;
    reinterpret_cast<float4*>(y)[i / 4] = v;
  } else {
    for (int j = i; j < n; ++j) y[j] = s * x[j];
  }
}
