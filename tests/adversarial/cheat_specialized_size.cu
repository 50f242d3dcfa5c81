// CHEAT specialized_size: the spec has one size, so the kernel ignores n and hard-codes it (a constant
// bound the compiler can fold). Caught by: the off-by-one sizes (one element short: a write past the
// end; one element more: an element never written). Expected: rejected.
#define N (1 << 22)

__global__ void gelu_fixed(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    float v = x[i];
    y[i] = 0.5f * v * (1.f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
  }
}
