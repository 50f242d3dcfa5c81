// Test harness for kernelpro/vector_io.cuh (called through ctypes).
#include <cuda_fp16.h>
#include <kernelpro/vector_io.cuh>

struct Scale {
  float a;
  __device__ float operator()(float v) const { return a * v + 1.0f; }
};

__global__ void scale_kernel(const float* __restrict__ in, float* __restrict__ out, size_t n, float a) {
  kernelpro::transform_vectorized<4>(in, out, n, Scale{a});
}

__global__ void copy_kernel(const __half* __restrict__ in, __half* __restrict__ out, size_t n) {
  kernelpro::copy_vectorized<8>(in, out, n);
}

// y = a x + 1 over n floats; the pointers may be misaligned on purpose
extern "C" int kp_scale(const float* in, float* out, long n, float a) {
  scale_kernel<<<120, 256>>>(in, out, size_t(n), a);
  return cudaGetLastError();
}

extern "C" int kp_copy_half(const void* in, void* out, long n) {
  copy_kernel<<<120, 256>>>(static_cast<const __half*>(in), static_cast<__half*>(out), size_t(n));
  return cudaGetLastError();
}

extern "C" int kp_vector_width_float(const float* a, const float* b) { return kernelpro::vector_width(a, b); }
