// Test harness for kernelpro/gemm_sm90.cuh: a C entry point called through ctypes.
#include <kernelpro/gemm_sm90.cuh>

extern "C" int kp_gemm_bf16_sm90(int m, int n, int k, const void* a, const void* bt, void* d, void* stream) {
  return static_cast<int>(kernelpro::gemm_bf16_sm90(m, n, k, static_cast<const __nv_bfloat16*>(a),
                                                    static_cast<const __nv_bfloat16*>(bt),
                                                    static_cast<__nv_bfloat16*>(d),
                                                    static_cast<cudaStream_t>(stream)));
}
