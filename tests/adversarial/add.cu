// Honest twin of faster_than_ceiling and oob_read_neighbour: out = a + b, four elements per thread
// with 128-bit loads and a scalar tail (close to the DRAM roof at the large size).
__global__ void add(float* __restrict__ out, const float* __restrict__ a, const float* __restrict__ b, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (i + 3 < n) {
    float4 va = *reinterpret_cast<const float4*>(a + i);
    float4 vb = *reinterpret_cast<const float4*>(b + i);
    *reinterpret_cast<float4*>(out + i) = make_float4(va.x + vb.x, va.y + vb.y, va.z + vb.z, va.w + vb.w);
  } else {
    for (int j = i; j < n; ++j) out[j] = a[j] + b[j];
  }
}
