// launch: grid cdiv(T, 16), cdiv(T, 16) block 16, 16
// sizes: T=100 D=64
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// scores with the dot product read 16 bytes at a time (D a multiple of 4)
__global__ void qk4(const float* q, const float* k, float* s, int T, int D) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= T || j >= T) return;
  const float4* qi = reinterpret_cast<const float4*>(q + i * D);
  const float4* kj = reinterpret_cast<const float4*>(k + j * D);
  float acc = 0.f;
  for (int d = 0; d < D / 4; ++d) {
    float4 a = qi[d], b = kj[d];
    acc += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
  }
  s[i * T + j] = acc;
}
