// Test harness for kernelpro/gemm_sm90.cuh's TF32 form, built only by the GPU test (its CUTLASS instantiation
// doubles the harness's compile time): a C entry point called through ctypes.
#include <kernelpro/gemm_sm90.cuh>
// fp32 operands multiplied in TF32 (row-major A and B, as a TF32-admitting optimizer candidate calls it), alpha, beta.
extern "C" int kp_gemm_sm90_tf32_rr(int m, int n, int k, const void* a, const void* b, void* c, float alpha,
                                    float beta) {
  return static_cast<int>(kernelpro::gemm_sm90<float, kernelpro::RowMajor, float, kernelpro::RowMajor, float,
                                               cute::Shape<cute::_128, cute::_128, cute::_32>,
                                               cute::Shape<cute::_1, cute::_1, cute::_1>>(
      m, n, k, 1, a, k, 0, b, n, 0, c, n, 0, alpha, beta));
}

// 1 where the last call ran the tensor-core kernel, 0 where it ran the plain fallback.
extern "C" int kp_gemm_sm90_last_tc() { return kernelpro::gemm_sm90_last_used_tensor_cores() ? 1 : 0; }
