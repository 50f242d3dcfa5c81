// Test harness for kernelpro/scan.cuh: C entry points called through ctypes.
#include <kernelpro/scan.cuh>

extern "C" int kp_scan_float(const void* in, void* out, long long n, int inclusive, void* stream) {
  return static_cast<int>(kernelpro::scan(static_cast<const float*>(in), static_cast<float*>(out), n, inclusive != 0,
                                          static_cast<cudaStream_t>(stream)));
}

extern "C" int kp_scan_int(const void* in, void* out, long long n, int inclusive, void* stream) {
  return static_cast<int>(kernelpro::scan(static_cast<const int*>(in), static_cast<int*>(out), n, inclusive != 0,
                                          static_cast<cudaStream_t>(stream)));
}
