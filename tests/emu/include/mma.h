// kp_emu stub of <mma.h>: nvcuda::wmma with each emulated thread holding a whole fragment (the
// tile, row by row in x[]), so loads, conversions, mma_sync and fills compute what the warp's
// fragments would; a store is done by lane 0 of the warp (the other lanes hold the same values).
// Enough for the tests' WMMA kernels (bf16, fp16 and TF32 operands, fp32 sums). mma_sync on
// precision::tf32 fragments uses the operands' upper 19 bits only (the low 13 ignored, as the
// tensor cores do), whether or not the kernel rounded them with __float_to_tf32 first; each mma_sync's
// sum is rounded toward zero (see kp_toward_zero).
#pragma once
namespace nvcuda {
namespace wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
namespace precision { struct tf32 {}; }
enum layout_t { mem_row_major, mem_col_major };
inline float __float_to_tf32(float f) {  // round to nearest, 10-bit mantissa
  unsigned u;
  std::memcpy(&u, &f, 4);
  u = (u + 0x1000u) & 0xFFFFE000u;
  std::memcpy(&f, &u, 4);
  return f;
}
template <class Use, int M, int N, int K, class T, class Layout = void> struct fragment {
  static constexpr int R = std::is_same_v<Use, matrix_b> ? K : M;
  static constexpr int C = std::is_same_v<Use, matrix_a> ? K : N;
  static constexpr int num_elements = R * C;
  static constexpr bool col = std::is_same_v<Layout, col_major>;
  float x[R * C];
  float& at(int r, int c) { return x[r * C + c]; }
  float at(int r, int c) const { return x[r * C + c]; }
};
template <class U, int M, int N, int K, class T, class L, class V>
inline void fill_fragment(fragment<U, M, N, K, T, L>& f, V v) {
  for (auto& e : f.x) e = (float)v;
}
template <class U, int M, int N, int K, class T, class L, class P>
inline void load_matrix_sync(fragment<U, M, N, K, T, L>& f, const P* p, unsigned ldm) {
  using F = fragment<U, M, N, K, T, L>;
  for (int r = 0; r < F::R; ++r)
    for (int c = 0; c < F::C; ++c) f.at(r, c) = (float)(F::col ? p[c * ldm + r] : p[r * ldm + c]);
}
template <int M, int N, int K, class T, class L, class P>
inline void load_matrix_sync(fragment<accumulator, M, N, K, T, L>& f, const P* p, unsigned ldm, layout_t l) {
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) f.at(r, c) = (float)(l == mem_col_major ? p[c * ldm + r] : p[r * ldm + c]);
}
template <int M, int N, int K, class T, class L, class P>
inline void store_matrix_sync(P* p, const fragment<accumulator, M, N, K, T, L>& f, unsigned ldm, layout_t l) {
  __syncwarp();
  if (kp_tid % 32 == 0)
    for (int r = 0; r < M; ++r)
      for (int c = 0; c < N; ++c) (l == mem_col_major ? p[c * ldm + r] : p[r * ldm + c]) = (P)f.at(r, c);
  __syncwarp();
}
inline float kp_tf32_bits(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  u &= 0xFFFFE000u;
  std::memcpy(&f, &u, 4);
  return f;
}
// The tensor cores add an MMA's products and its accumulator in one step and round the sum toward zero
// (Fasi et al., "Numerical behavior of NVIDIA tensor cores", 2021): modelled as the exact sum rounded to
// fp32 toward zero, so a long chain of sums kept inside the MMAs drifts toward zero as on the GPU.
inline float kp_toward_zero(double s) {
  float f = (float)s;  // round to nearest
  if (std::fabs((double)f) > std::fabs(s)) f = std::nextafter(f, 0.0f);
  return f;
}
template <int M, int N, int K, class TA, class LA, class TB, class LB, class TC, class LC>
inline void mma_sync(fragment<accumulator, M, N, K, TC, LC>& d, const fragment<matrix_a, M, N, K, TA, LA>& a,
                     const fragment<matrix_b, M, N, K, TB, LB>& b, const fragment<accumulator, M, N, K, TC, LC>& c) {
  float out[M * N];
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = c.at(i, j);
      for (int q = 0; q < K; ++q) {
        float x = a.at(i, q), y = b.at(q, j);
        if constexpr (std::is_same_v<TA, precision::tf32>) x = kp_tf32_bits(x);
        if constexpr (std::is_same_v<TB, precision::tf32>) y = kp_tf32_bits(y);
        s += (double)x * (double)y;
      }
      out[i * N + j] = kp_toward_zero(s);
    }
  for (int e = 0; e < M * N; ++e) d.x[e] = out[e];
}
}  // namespace wmma
}  // namespace nvcuda
