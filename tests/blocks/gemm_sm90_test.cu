// Test harness for kernelpro/gemm_sm90.cuh: a C entry point called through ctypes.
#include <kernelpro/gemm_sm90.cuh>

extern "C" int kp_gemm_bf16_sm90(int m, int n, int k, const void* a, const void* bt, void* d, void* stream) {
  return static_cast<int>(kernelpro::gemm_bf16_sm90(m, n, k, static_cast<const __nv_bfloat16*>(a),
                                                    static_cast<const __nv_bfloat16*>(bt),
                                                    static_cast<__nv_bfloat16*>(d),
                                                    static_cast<cudaStream_t>(stream)));
}

// The general form: C (l x m x n) = alpha * A (l x m x k, row-major) * B (l x k x n, row-major) + beta * C, bf16;
// where the tensor cores refuse the sizes, the block's plain kernel answers.
extern "C" int kp_gemm_sm90_rr(int m, int n, int k, int l, const void* a, const void* b, void* c, float alpha,
                               float beta) {
  return static_cast<int>(
      kernelpro::gemm_sm90<cutlass::bfloat16_t, kernelpro::RowMajor, cutlass::bfloat16_t, kernelpro::RowMajor,
                           cutlass::bfloat16_t>(m, n, k, l, a, k, int64_t(m) * k, b, n, int64_t(k) * n, c, n,
                                                int64_t(m) * n, alpha, beta));
}

// fp16 operands stored column-major (A: k x m row-major, B^T: n x k row-major), an fp32 output, 128 x 128 tiles.
extern "C" int kp_gemm_sm90_cc(int m, int n, int k, const void* a, const void* b, void* c) {
  return static_cast<int>(
      kernelpro::gemm_sm90<cutlass::half_t, kernelpro::ColumnMajor, cutlass::half_t, kernelpro::ColumnMajor, float,
                           cute::Shape<cute::_128, cute::_128, cute::_64>, cute::Shape<cute::_1, cute::_1, cute::_1>>(
          m, n, k, 1, a, m, 0, b, k, 0, c, n, 0, 1.0f, 0.0f));
}
