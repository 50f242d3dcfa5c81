// launch: {"grid": ["cdiv(N, 2048)"], "block": [256]}
// Residual add variant: unroll 2
#define RES_UNROLL 2
#define LD(p) *(p)
#define ST(p, v) *(p) = (v)
__global__ void __launch_bounds__(256) residual_forward(float* __restrict__ out, const float* __restrict__ inp1,
                                 const float* __restrict__ inp2, int N) {
  const float4* a = reinterpret_cast<const float4*>(inp1);
  const float4* b = reinterpret_cast<const float4*>(inp2);
  float4* o = reinterpret_cast<float4*>(out);
  const int nvec = N / 4;
  const int chunk = blockDim.x * RES_UNROLL;
  const int base = blockIdx.x * chunk + threadIdx.x;
  if (blockIdx.x * chunk + chunk <= nvec) {
    float4 x[RES_UNROLL], y[RES_UNROLL];
#pragma unroll
    for (int k = 0; k < RES_UNROLL; ++k) {
      x[k] = LD(a + base + k * (int)blockDim.x);
      y[k] = LD(b + base + k * (int)blockDim.x);
    }
#pragma unroll
    for (int k = 0; k < RES_UNROLL; ++k)
      ST(o + base + k * (int)blockDim.x, make_float4(x[k].x + y[k].x, x[k].y + y[k].y, x[k].z + y[k].z, x[k].w + y[k].w));
  } else {
#pragma unroll
    for (int k = 0; k < RES_UNROLL; ++k) {
      const int i = base + k * (int)blockDim.x;
      if (i < nvec) {
        const float4 x = a[i], y = b[i];
        o[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
      }
    }
    if (blockIdx.x == gridDim.x - 1)
      for (int i = nvec * 4 + threadIdx.x; i < N; i += blockDim.x) out[i] = inp1[i] + inp2[i];
  }
}
