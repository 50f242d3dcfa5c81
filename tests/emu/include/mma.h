// kp_emu stub of <mma.h>: nvcuda::wmma with each emulated thread holding a whole fragment (the
// tile), so loads, mma_sync and fills compute what the warp's fragments would; a store is done by
// lane 0 of the warp (the other lanes hold the same values). Enough for the tests' WMMA kernels.
#pragma once
namespace nvcuda {
namespace wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };
template <class Use, int M, int N, int K, class T, class Layout = void> struct fragment {
  static constexpr int R = std::is_same_v<Use, matrix_b> ? K : M;
  static constexpr int C = std::is_same_v<Use, matrix_a> ? K : N;
  float v[R][C];
  static constexpr bool col = std::is_same_v<Layout, col_major>;
};
template <class U, int M, int N, int K, class T, class L, class V>
inline void fill_fragment(fragment<U, M, N, K, T, L>& f, V x) {
  for (auto& r : f.v)
    for (auto& e : r) e = (float)x;
}
template <class U, int M, int N, int K, class T, class L, class P>
inline void load_matrix_sync(fragment<U, M, N, K, T, L>& f, const P* p, unsigned ldm) {
  using F = fragment<U, M, N, K, T, L>;
  for (int r = 0; r < F::R; ++r)
    for (int c = 0; c < F::C; ++c) f.v[r][c] = (float)(F::col ? p[c * ldm + r] : p[r * ldm + c]);
}
template <int M, int N, int K, class T, class L, class P>
inline void load_matrix_sync(fragment<accumulator, M, N, K, T, L>& f, const P* p, unsigned ldm, layout_t l) {
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) f.v[r][c] = (float)(l == mem_col_major ? p[c * ldm + r] : p[r * ldm + c]);
}
template <int M, int N, int K, class T, class L, class P>
inline void store_matrix_sync(P* p, const fragment<accumulator, M, N, K, T, L>& f, unsigned ldm, layout_t l) {
  __syncwarp();
  if (kp_tid % 32 == 0)
    for (int r = 0; r < M; ++r)
      for (int c = 0; c < N; ++c) (l == mem_col_major ? p[c * ldm + r] : p[r * ldm + c]) = (P)f.v[r][c];
  __syncwarp();
}
template <int M, int N, int K, class TA, class LA, class TB, class LB, class TC, class LC>
inline void mma_sync(fragment<accumulator, M, N, K, TC, LC>& d, const fragment<matrix_a, M, N, K, TA, LA>& a,
                     const fragment<matrix_b, M, N, K, TB, LB>& b, const fragment<accumulator, M, N, K, TC, LC>& c) {
  float out[M][N];
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float s = c.v[i][j];
      for (int q = 0; q < K; ++q) s += a.v[i][q] * b.v[q][j];
      out[i][j] = s;
    }
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) d.v[i][j] = out[i][j];
}
}  // namespace wmma
}  // namespace nvcuda
