// Test harness for kernelpro/transpose.cuh (called through ctypes).
#include <kernelpro/transpose.cuh>

extern "C" int kp_transpose_float(float* out, const float* in, int rows, int cols) {
  return kernelpro::transpose(out, in, rows, cols);
}

extern "C" int kp_transpose_double(double* out, const double* in, int rows, int cols) {
  return kernelpro::transpose<32, 16>(out, in, rows, cols);
}
