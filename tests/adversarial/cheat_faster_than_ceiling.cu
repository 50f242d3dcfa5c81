// CHEAT faster_than_ceiling: knows the spec fills b with ones and never reads it: right answers from
// two thirds of the bytes [cost] says one run moves, so its rate is beyond the device's DRAM ceiling.
// Caught by: a result faster than the measured ceilings is an evaluation error. Expected: rejected.
__global__ void add(float* __restrict__ out, const float* __restrict__ a, const float* __restrict__ b, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (i + 3 < n) {
    float4 va = *reinterpret_cast<const float4*>(a + i);
    *reinterpret_cast<float4*>(out + i) = make_float4(va.x + 1.f, va.y + 1.f, va.z + 1.f, va.w + 1.f);
  } else {
    for (int j = i; j < n; ++j) out[j] = a[j] + 1.f;
  }
}
