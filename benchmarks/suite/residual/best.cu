// Residual add, hand-written: float4 (16-byte) loads and stores, 4 per thread and step issued
// together (memory-level parallelism), coalesced per warp; the tail goes element by element.
#define RES_UNROLL 4

__global__ void residual_forward(float* __restrict__ out, const float* __restrict__ inp1,
                                 const float* __restrict__ inp2, int N) {
  const float4* a = reinterpret_cast<const float4*>(inp1);
  const float4* b = reinterpret_cast<const float4*>(inp2);
  float4* o = reinterpret_cast<float4*>(out);
  const long long nvec = N / 4;
  const long long chunk = (long long)blockDim.x * RES_UNROLL;
  for (long long base = (long long)blockIdx.x * chunk; base < nvec; base += (long long)gridDim.x * chunk) {
    if (base + chunk <= nvec) {
      float4 x[RES_UNROLL], y[RES_UNROLL];
#pragma unroll
      for (int k = 0; k < RES_UNROLL; ++k) {
        x[k] = a[base + threadIdx.x + k * blockDim.x];
        y[k] = b[base + threadIdx.x + k * blockDim.x];
      }
#pragma unroll
      for (int k = 0; k < RES_UNROLL; ++k)
        o[base + threadIdx.x + k * blockDim.x] = make_float4(x[k].x + y[k].x, x[k].y + y[k].y, x[k].z + y[k].z, x[k].w + y[k].w);
    } else {
      for (long long i = base + threadIdx.x; i < nvec; i += blockDim.x) {
        const float4 x = a[i], y = b[i];
        o[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
      }
    }
  }
  if (blockIdx.x == 0)
    for (int i = (int)(nvec * 4) + threadIdx.x; i < N; i += blockDim.x) out[i] = inp1[i] + inp2[i];
}
