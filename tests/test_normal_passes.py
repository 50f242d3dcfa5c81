"""The passes this round of blind kernels added to the plans' normal form (optimizer/restructure/passes.py,
profilers/analysis/spelling.py), each on the spelling it reads and on the near misses it must leave alone: a
second read of the change found each negative below as a wrong rewrite first."""
from __future__ import annotations

from kernelpro.optimizer.restructure.passes import (branch_selects_to_max, canonical_digits, join_parallel_sums,
                                                    return_after_loop_to_if)
from kernelpro.profilers.analysis.contraction import contractions
from kernelpro.profilers.analysis.spelling import inline_scaled_loads, plain_form
from kernelpro.profilers.source import parse_source

FLAT = """__global__ void k(const float* A, float* C, int M, int N) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= 3 * M * N) return;
  int batch = tid / (M * N);
  int rem = tid % (M * N);
  int row = rem / N;
  int col = rem % N;
  C[tid] = A[(batch * N + col) * M + row];
}
"""


def _body(text: str) -> str:
    return "".join(text[text.index("__global__"):].split())


def test_digits_read_through_a_remainder_local_are_declared_from_the_flat_index():
    body = _body(canonical_digits(FLAT, "f.cu", "k"))
    assert "introw=((tid/(N))%(M));" in body and "intcol=(tid%(N));" in body
    assert "intrem" not in body  # read by nothing else now
    assert "intbatch=tid/(M*N);" in body  # already a digit of the index: as written
    # a float division of a digit is no digit, and a quotient of a quotient keeps its two divisions
    fl = FLAT.replace("int row = rem / N;", "float row = (float)rem / N;").replace("A[(batch * N + col) * M + row]",
                                                                                  "row")
    assert "row=(float)rem/N" in _body(canonical_digits(fl, "f.cu", "k") or fl)
    qq = FLAT.replace("int rem = tid % (M * N);", "int rem = tid / N;").replace("int row = rem / N;", "int row = rem / M;")
    assert "introw=rem/M;" in _body(canonical_digits(qq, "f.cu", "k") or qq)


SYR2K = """__global__ void k(const float* A, const float* B, float* C, float alpha, int N, int M) {
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= N || j >= N) return;
  float ab = 0.0f;
  for (int k = 0; k < M; ++k) ab += A[i * M + k] * B[j * M + k];
  float ba = 0.0f;
  for (int l = 0; l < M; ++l) ba += B[i * M + l] * A[j * M + l];
  C[i * N + j] = alpha * (ab + ba);
}
"""


def test_two_sums_over_one_range_read_once_together_become_one_loop():
    body = _body(join_parallel_sums(SYR2K, "s.cu", "k"))
    assert "ab+=(A[i*M+k]*B[j*M+k])+(B[i*M+k]*A[j*M+k]);" in body
    assert "C[i*N+j]=alpha*ab;" in body and "for(intl=0" not in body


def test_sums_that_are_not_two_independent_sums_of_one_range_are_left_alone():
    bad = {
        "b reads a local declared between": SYR2K.replace("float ba = 0.0f;", "float ba = 0.0f; float s = 2.f;")
        .replace("ba += B[i * M + l]", "ba += s * B[i * M + l]"),
        "a declaration between reads the first sum": SYR2K.replace("float ba = 0.0f;", "float ba = 0.0f; float f = ab;"),
        "a term with a side effect": SYR2K.replace("A[j * M + l]", "A[j * M + l++]"),
        "a term reading its own sum": SYR2K.replace("ab += A[i * M + k]", "ab += ab * A[i * M + k]"),
        "other ranges": SYR2K.replace("l < M", "l < N"),
        "read apart": SYR2K.replace("alpha * (ab + ba)", "alpha * ab + ba * ab"),
    }
    for why, text in bad.items():
        assert join_parallel_sums(text, "s.cu", "k") is None, why
    # a loop variable's name as a field of another value is not renamed
    vec = SYR2K.replace("ba += B[i * M + l] * A[j * M + l];", "ba += B[i * M + l] * V[l].l;").replace(
        "const float* B,", "const float* B, const float2* V,").replace("V[l].l", "V[l].x")
    body = _body(join_parallel_sums(vec, "s.cu", "k"))
    assert "V[k].x" in body


MAX = """__global__ void k(const float* in, float* out, int n) {
  __shared__ float s[256];
  int t = threadIdx.x;
  float m = 0.f;
  for (int i = t; i < n; i += blockDim.x) { float a = fabsf(in[i]); if (a > m) m = a; }
  s[t] = m;
  __syncthreads();
  for (int h = 128; h > 0; h >>= 1) { if (t < h && s[t + h] > s[t]) s[t] = s[t + h]; __syncthreads(); }
  if (t == 0) out[blockIdx.x] = s[0];
}
"""


def test_a_select_of_the_larger_reads_as_max_and_a_clamp_stays_a_clamp():
    body = _body(branch_selects_to_max(MAX, "m.cu", "k"))
    assert "m=max(m,a);" in body and "if(t<h)s[t]=max(s[t],s[t+h]);" in body
    clamp = MAX.replace("if (a > m) m = a;", "if (a < 0) a = 0; if (a > n) a = n; m += a;").replace(
        "if (t < h && s[t + h] > s[t]) s[t] = s[t + h];", "")
    assert branch_selects_to_max(clamp, "m.cu", "k") is None  # a constant or a size: the histogram reads the clamp
    named = MAX.replace("float m", "float max").replace("a > m) m = a", "a > max) max = a").replace("s[t] = m", "s[t] = max")
    assert "max=max(" not in _body(branch_selects_to_max(named, "m.cu", "k") or named)
    init = MAX.replace("{ float a = fabsf(in[i]); if (a > m) m = a; }", "{ if (float a = fabsf(in[i]); a > m) m = a; }")
    assert "max(m" not in _body(branch_selects_to_max(init, "m.cu", "k") or init)


NORM = """__global__ void k(float* a, int m, int n) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= n) return;
  float ss = 0.f;
  for (int r = 0; r < m; r++) ss += a[r * n + c] * a[r * n + c];
  float nrm = sqrtf(ss);
  if (nrm < 1e-12f) return;
  for (int r = 0; r < m; r++) a[r * n + c] /= nrm;
}
"""


def test_a_return_after_the_reduction_guards_the_rest_and_the_bounds_guard_stays():
    body = _body(return_after_loop_to_if(NORM, "n.cu", "k"))
    assert "if(c>=n)return;" in body  # before the first loop: a guard, as written
    assert "if(!(nrm<1e-12f)){for(intr=0;r<m;r++)a[r*n+c]/=nrm;}" in body
    assert return_after_loop_to_if(NORM.replace("if (nrm < 1e-12f) return;", ""), "n.cu", "k") is None


UNROLLED = """__global__ void k(const float* A, const float* B, float* C, int K, int N) {
  int col = threadIdx.x;
  const float* a = A + blockIdx.x * K;
  float sum = 0.f;
  for (int k = 0; k < K; ++k) {
    float p0 = a[k] * B[k * N + col];
    float p1 = a[k] * B[k * N + col + 1];
    sum += p0 + p1;
  }
  C[col] = sum;
}
"""


def test_a_product_held_in_a_local_is_read_where_it_is_used_unless_something_between_could_change_it():
    body = _body(plain_form(UNROLLED, "u.cu", "k"))
    assert "sum+=(a[k]*B[k*N+col])+(a[k]*B[k*N+col+1]);" in body
    stored = UNROLLED.replace("float p1 = a[k] * B[k * N + col + 1];",
                              "float p1 = a[k] * B[k * N + col + 1]; C[col] = 0.f;")
    assert inline_scaled_loads(stored, "u.cu", "k") is None  # a store between: not past it
    shadow = UNROLLED.replace("float p1 = a[k] * B[k * N + col + 1];", "float p1 = a[k] * B[k * N + col + 1]; int N2 = N;")
    assert "sum+=(a[k]*B[k*N+col])" in _body(plain_form(shadow, "u.cu", "k"))
    ref = UNROLLED.replace("float p1 = a[k] * B[k * N + col + 1];", "float& r = C[col]; float p1 = a[k] * B[k * N + col + 1];")
    assert "floatp0=" in _body(inline_scaled_loads(ref, "u.cu", "k") or ref)  # a reference between: left alone


def test_rows_a_thread_runs_in_a_loop_are_no_batch_unless_the_loop_steps_whole_matrices():
    rows = """__global__ void k(const float* A, const float* B, float* C, int M, int N, int K, int R, int Mr) {
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= Mr || j >= N) return;
  for (int r = 0; r < R; ++r) {
    int row = i * R + r;
    if (row < M) {
      float acc = 0.f;
      for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + j];
      C[row * N + j] = acc;
    }
  }
}
"""
    src = parse_source(rows)
    f = contractions(src, src.kernels[0])
    assert not f.products and "whole matrices" in f.refused[0].reason


def test_a_min_or_max_macros_ternary_reads_as_the_call_only_over_index_arithmetic():
    from kernelpro.optimizer.restructure.passes import ternary_min_max
    text = """#define MAX(a, b) ((a) >= (b) ? (a) : (b))
__global__ void k(const float* t, float* o, int n, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= n) return;
  int l = ((x - 1) >= (0) ? (x - 1) : (0));
  int r = (x + 1 < n - 1) ? n - 1 : x + 1;
  float m = t[x] > t[l] ? t[x] : t[l];
  float z = (x > 0.5f) ? x : 0.5f;
  o[x] = t[l] + t[r] + m + z;
}
"""
    body = _body(ternary_min_max(text, "m.cu", "k"))
    assert "intl=(max(x-1,0));" in body and "intr=max(x+1,n-1);" in body
    assert "floatm=t[x]>t[l]?t[x]:t[l];" in body  # loads (NaN): as written
    assert "floatz=(x>0.5f)?x:0.5f;" in body  # a floating-point literal: as written


def test_a_looping_function_templates_call_with_explicit_arguments_calls_an_instantiated_copy():
    from kernelpro.optimizer.restructure.passes import instantiate_template_calls
    text = """template <typename T, int N>
__device__ T block_sum(T v, T* s) {
  s[threadIdx.x] = v;
  __syncthreads();
  for (int h = N / 2; h > 0; h >>= 1) { if (threadIdx.x < h) s[threadIdx.x] += s[threadIdx.x + h]; __syncthreads(); }
  return s[0];
}
#define B 128
__global__ void k(const float* x, float* out) {
  __shared__ float s[B];
  float t = block_sum<float, B>(x[blockIdx.x * B + threadIdx.x], s);
  if (threadIdx.x == 0) out[blockIdx.x] = t;
}
"""
    new = instantiate_template_calls(text, "t.cu", "k")
    body = _body(new)
    assert "floatt=kp_block_sum_i1(x[blockIdx.x*B+threadIdx.x],s);" in body
    assert "inth=(128)/2" in "".join(new.split()) and "floatkp_block_sum_i1(floatv,float*s)" in "".join(new.split())
    spec = text.replace("#define B 128", "template <> __device__ float block_sum<float, 128>(float v, float* s) "
                        "{ for (int i = 0; i < 1; ++i) v += 0.f; return v; }\n#define B 128")
    assert instantiate_template_calls(spec, "t.cu", "k") is None  # specialised: which body runs depends on the types


def test_an_instantiated_copy_renames_only_its_name_and_keeps_types_as_types():
    from kernelpro.optimizer.restructure.passes import instantiate_template_calls
    text = """template <typename T, int N>
__device__ T at(T v, T* s) {
  s[threadIdx.x] = (T)(v) * (T)sizeof(T);
  __syncthreads();
  for (int h = N / 2; h > 0; h >>= 1) { if (threadIdx.x < h) s[threadIdx.x] += s[threadIdx.x + h]; __syncthreads(); }
  return s[0];
}
__global__ void k(const float* x, float* out) {
  __shared__ float s[64];
  float t = at<float, 64>(x[threadIdx.x], s);
  if (threadIdx.x == 0) out[0] = t;
}
"""
    flat = "".join(instantiate_template_calls(text, "t.cu", "k").split())
    assert "__device__floatkp_at_i1(floatv,float*s){" in flat
    assert "s[threadIdx.x]=(float)(v)*(float)sizeof(float);" in flat and "inth=(64)/2" in flat
    dflt = text.replace("template <typename T, int N>", "template <typename T, int N = 64>")
    assert instantiate_template_calls(dflt, "t.cu", "k") is None  # a default: left as written
    local = text.replace("float t = at<float, 64>", "const int W = 64; float t = at<float, W>")
    assert "inth=(64)/2" in "".join(instantiate_template_calls(local, "t.cu", "k").split())  # its value, not its name


def test_min_max_ternaries_compare_their_trees_skip_wide_types_and_go_innermost_first():
    from kernelpro.optimizer.restructure.passes import ternary_min_max
    base = """__global__ void k(const float* t, float* o, int n, int m, size_t z) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int a = BODY;
  o[x] = t[a];
}
"""
    paren = base.replace("BODY", "n - (x - 1) > m ? n - x - 1 : m")
    assert ternary_min_max(paren, "p.cu", "k") is None  # `n - (x - 1)` is not `n - x - 1`
    assert ternary_min_max(base.replace("BODY", "z > m ? z : m"), "p.cu", "k") is None  # size_t and int
    nested = base.replace("BODY", "((((x - 1) >= 0 ? (x - 1) : 0)) <= (n - 1) ? (((x - 1) >= 0 ? (x - 1) : 0)) : (n - 1))")
    once = ternary_min_max(nested, "p.cu", "k")
    twice = ternary_min_max(once, "p.cu", "k")
    assert "inta=(min(max(x-1,0),n-1));" in _body(twice)
