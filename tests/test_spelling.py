"""analysis.spelling: one-expression device helpers inlined, multi-name declarations split, macros expanded, and
what the plans and the spec inference read through them; affine.finite_values for few-valued locals."""
from __future__ import annotations

import subprocess

import pytest

from kernelpro.optimizer.restructure.api import Context, plans
from kernelpro.profilers.analysis.affine import finite_values
from kernelpro.profilers.analysis.spelling import inline_expression_helpers, negated_guards, plain_form, split_declarations
from kernelpro.profilers.source import parse_source
from kernelpro.profilers.toolchain import discover

HELPER_MM = """__device__ __forceinline__ float at(const float* p, int r, int c, int ld) { return p[r * ld + c]; }
__device__ inline float sq(float x) { return x * x; }
__device__ float& ref(float* p, int i) { return p[i]; }
__global__ void mm(const float* A, const float* B, float* C, int M, int N, int K) {
  int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < M && c < N) {
    float acc = 0.f;
    for (int t = 0; t < K; t++) acc += at(A, r, t, K) * at(B, t, c, N);
    ref(C, r * N + c) = acc + 0.f * sq(acc);
  }
}
"""


def test_one_expression_helpers_read_as_their_expression_with_the_arguments_put_in():
    new = inline_expression_helpers(HELPER_MM, "h.cu", "mm")
    body = new[new.index("__global__"):]
    assert "acc += A[r * K + t] * B[t * N + c];" in body  # an element of a `const float*` as a float: no cast
    assert "C[(r * N + c)] = acc + 0.f * ((float)(acc * acc));" in body  # a reference: stored to as is
    assert "at(" not in body and "ref(" not in body and "sq(" not in body
    assert new[:new.index("__global__")] == HELPER_MM[:HELPER_MM.index("__global__")]  # the helpers stay


def test_a_helper_reading_a_parameter_twice_is_not_given_an_argument_with_side_effects():
    text = HELPER_MM.replace("0.f * sq(acc)", "0.f * sq(C[r]++)")
    new = inline_expression_helpers(text, "h.cu", "mm")
    assert "sq(C[r]++)" in new and "A[r * K + t]" in new
    loopy = "__device__ float f(const float* p) { float s = 0; for (int i = 0; i < 4; ++i) s += p[i]; return s; }\n" \
            "__global__ void k(const float* p, float* o) { o[threadIdx.x] = f(p); }\n"
    assert inline_expression_helpers(loopy, "h.cu", "k") is None  # not one expression: left to other passes
    tmpl = "template <typename T> __device__ T g(const T* p, int i) { return p[i]; }\n" \
           "__global__ void k(const float* p, float* o) { o[threadIdx.x] = g(p, threadIdx.x); }\n"
    # a template's helper: its type comes from the arguments, no cast; one with a specialisation is left alone
    assert "o[threadIdx.x] = p[(threadIdx.x)];" in inline_expression_helpers(tmpl, "h.cu", "k")
    spec = tmpl + "template <> __device__ float g<float>(const float* p, int i) { return 2.0f * p[i]; }\n"
    assert inline_expression_helpers(spec, "h.cu", "k") is None


def test_a_functor_objects_one_expression_call_operator_reads_as_its_expression():
    text = """template <typename T> struct MulAdd { __device__ T operator()(T a, T b, T c) const { return a * b + c; } };
struct Twice { __device__ float operator()(float x) const { float y = x; return y + y; } };
__global__ void k(const float* a, const float* b, float* o, int n) {
  MulAdd<float> op;
  Twice tw{};
  float acc = 0.f;
  for (int i = 0; i < n; ++i) acc = op(a[i], b[i], acc);
  o[0] = tw(acc);
}
"""
    new = inline_expression_helpers(text, "f.cu", "k")
    assert "acc = ((a[i])*(b[i])+acc);" in new.replace(" * ", "*").replace(" + ", "+")  # into a float: no cast
    assert "o[0] = tw(acc);" in new  # not one expression: left as written


def test_declarations_of_several_names_split_in_order_outside_loop_headers():
    text = """__global__ void k(float* o, int n) {
  int r = blockIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x, w = c + r * n;
  float *p = o + w, q = 2.0f;
  for (int i = 0, j = 1; i < n; ++i, ++j) o[i] += j;
  *p = q;
}
"""
    new = split_declarations(text, "d.cu", "k")
    # on the line they were on: the line numbers that reasons and descriptions give stay the file's
    assert "  int r = blockIdx.y; int c = blockIdx.x * blockDim.x + threadIdx.x; int w = c + r * n;\n" in new
    assert "  float *p = o + w; float q = 2.0f;\n" in new  # each declarator keeps its own star
    assert new.count("\n") == text.count("\n")
    assert "for (int i = 0, j = 1; i < n; ++i, ++j)" in new


@pytest.mark.slow
def test_the_plain_form_compiles_and_means_the_same(tmp_path):
    """The plain form of the helper product, compiled beside the original: both build (no name lost)."""
    nvcc = discover().path("nvcc")
    for name, text in (("a.cu", HELPER_MM), ("b.cu", plain_form(HELPER_MM, "h.cu", "mm"))):
        (tmp_path / name).write_text(text)
        r = subprocess.run([nvcc, "-arch=sm_90", "-c", "-o", str(tmp_path / f"{name}.o"), str(tmp_path / name)],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]


def test_a_product_through_helpers_and_a_comma_declaration_gets_the_matmul_plans():
    ctx = Context(kernel="mm", path="h.cu", launch={"grid": ["cdiv(N, 16)", "cdiv(M, 16)"], "block": [16, 16]},
                  base_launch=None, size_env={"s": {"M": 257, "N": 129, "K": 65}},
                  scalar_params={"M": "M", "N": "N", "K": "K"})
    got, why = plans(HELPER_MM, ctx)
    assert {"matmul-tiles", "matmul-3xtf32"} <= {p.name for p in got}, why


def test_few_valued_locals_are_found_and_stepped_ones_are_not():
    text = """__global__ void k(float* t, int n) {
  int pout = 0, pin = 1, s = 0, w = 0, z = 3;
  for (int o = 1; o < n; o *= 2) { pout = 1 - pout; pin = 1 - pout; s++; w = n; z = z * 2; }
  t[pout * blockDim.x + threadIdx.x] = t[pin * blockDim.x + threadIdx.x];
}
"""
    src = parse_source(text, "f.cu")
    got = finite_values(src, src.kernel("k"))
    assert got == {"pout": {0, 1}, "pin": {0, 1}}  # s stepped, w unknown, z grows past the limit


def test_a_floating_point_ceiling_of_integers_reads_as_the_integer_ceiling_division():
    """PMPP's `ph < ceil(Width/(float)TILE_WIDTH)`: the tile count the shared-memory product's reading needs;
    a ceiling of a float value or of an integer division (already floored) is left as written."""
    from kernelpro.profilers.analysis.spelling import ceil_divisions

    text = ("#define T 16\n__global__ void k(float* a, int n, unsigned m) {\n"
            "  int p = ceil(n / (float)T);\n  int q = (int)ceilf((float)m / blockDim.x);\n"
            "  int r = ceil(n / 16.0);\n  float z = ceil(a[0] / 2.0f);\n  int w = ceil(n / 4);\n  a[p + q + r + w] = z;\n}\n")
    got = ceil_divisions(text, "k.cu", "k")
    assert "int p = ((n + (T) - 1) / (T));" in got
    assert "int q = (int)((m + (blockDim.x) - 1) / (blockDim.x));" in got
    assert "int r = ((n + (16) - 1) / (16));" in got
    assert "ceil(a[0] / 2.0f)" in got and "ceil(n / 4)" in got
    assert ceil_divisions(text.replace("ceil(n / (float)T)", "0").replace("ceilf((float)m / blockDim.x)", "0")
                          .replace("ceil(n / 16.0)", "0"), "k.cu", "k") is None


def test_a_bool_set_once_from_a_comparison_is_read_where_it_is_used():
    """`bool has2 = (col + 1) < N;` read in its `if`s; not where its names (or the flag) change after it."""
    from kernelpro.profilers.analysis.spelling import inline_conditions

    text = ("__global__ void k(float* c, int N) {\n  int col = 2 * threadIdx.x;\n  bool has2 = (col + 1) < N;\n"
            "  if (has2) c[col + 1] = 1.f;\n}\n")
    got = inline_conditions(text, "k.cu", "k")
    assert "bool has2" not in got and "if (((col + 1) < N)) c[col + 1]" in got
    assert inline_conditions(text.replace("if (has2)", "col += 1; if (has2)"), "k.cu", "k") is None
    assert inline_conditions(text.replace("if (has2)", "has2 = false; if (has2)"), "k.cu", "k") is None
    assert inline_conditions(text.replace("(col + 1) < N", "f(col)"), "k.cu", "k") is None


def test_a_flag_read_from_memory_or_redeclared_in_another_block_stays_as_written():
    from kernelpro.profilers.analysis.spelling import inline_conditions

    mem = ("__global__ void k(float* d, int i) {\n  bool pos = d[i] > 0;\n  d[i] = 0.0f;\n"
           "  if (pos) d[i + 1] = 1.f;\n}\n")
    assert inline_conditions(mem, "k.cu", "k") is None  # (d[i] changes before the flag is read)
    two = ("__global__ void k(float* a, int i, int m, int n) {\n  { bool ok = i < m; if (ok) a[0] = 1.f; }\n"
           "  { bool ok = i < n; if (ok) a[1] = 1.f; }\n}\n")
    got = inline_conditions(two, "k.cu", "k")
    assert "if ((i < m)) a[0]" in got and "if ((i < n)) a[1]" in got


def test_a_scaled_load_in_a_loop_local_is_read_where_the_next_expression_uses_it_once():
    """Darknet's `float A_PART = ALPHA * A[..]; C[..] += A_PART * B[..];`: the local read in the update; not where the
    next statement is a loop (it would read A again each pass) or writes a name the value reads."""
    from kernelpro.profilers.analysis.spelling import inline_scaled_loads
    base = ("__global__ void k(float s, const float* A, float* out, int m, int n) {\n"
            "  for (int i = 0; i < n; ++i) {\n    BODY\n  }\n}\n")
    got = inline_scaled_loads(base.replace("BODY", "float v = s * A[i];\n    out[i] += v;"), "x.cu", "k")
    assert got is not None and "out[i] += (s * A[i]);" in got and "float v" not in got
    for body in ("float v = s * A[i];\n    for (int c = 0; c < m; ++c) out[c] += v;",  # read again each pass
                 "float v = s * A[i];\n    i += v > 0;",  # the index it reads changed by the statement
                 "float v = s * A[i];\n    out[i] += v; out[0] += v;",  # used twice
                 "int v = (int)s * A[i];\n    out[i] += v;"):  # not one element times scalars of its type
        assert inline_scaled_loads(base.replace("BODY", body), "x.cu", "k") is None, body


def test_a_guarded_return_helper_is_one_conditional_expression_in_its_return_type():
    """`if (c) return a; return b;` read as `(c) ? (R)(a) : (R)(b)`, R the helper's type (not the branches' common
    type: -1 and an unsigned would make 4294967295), its comparisons parenthesised; a declaration as the condition
    is left alone."""
    from kernelpro.profilers.analysis.spelling import guarded_return_helpers
    text = ("__device__ long long f(int c, unsigned u) { if (c < 0 || c > 9) return -1; return u; }\n"
            "__global__ void k(long long* o, unsigned u) { o[0] = f(threadIdx.x, u); }\n")
    got = guarded_return_helpers(text, "x.cu", "k")
    assert "return ((c < 0) || (c > 9)) ? (long long)(-1) : (long long)(u);" in got
    assert guarded_return_helpers(text.replace("if (c < 0 || c > 9)", "if (bool t = c < 0)"), "x.cu", "k") is None


def test_a_negated_guard_of_integer_comparisons_reads_as_de_morgan_s_and_nothing_else_does():
    """Round Q's `if (!(r < static_cast<size_t>(M) && c < N)) return;` is the early return `r >= M || c >= N`: each
    integer comparison negated, && and || exchanged; a float's comparison (NaN compares false both ways), a read
    of memory or a call stays as written."""
    kern = """__global__ void f(const float* a, float* out, int M, int N, float t) {{
  const size_t r = static_cast<size_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if ({cond}) return;
  out[r * N + c] = a[r * N + c];
}}"""
    for cond, want in (("!(r < static_cast<size_t>(M) && c < N)", "r >= static_cast<size_t>(M) || c >= N"),
                       ("!(c < N)", "c >= N"), ("!((r < M) || !(c != 0))", "r >= M && (c != 0)"),
                       ("!(threadIdx.x <= 3 && c == N - 1)", "threadIdx.x > 3 || c != N - 1"),
                       # inside `!( .. )` tree-sitter reads `c < N - 1 && c >= 1` as a template's arguments: the
                       # condition is parsed again alone (round S's 3-D Laplacian)
                       ("!(c >= 1 && c < N - 1 && r >= 1 && r < M - 1)", "c < 1 || c >= N - 1 || r < 1 || r >= M - 1"),
                       ("!(c < N - 1 && c >= 1)", "c >= N - 1 || c < 1")):
        got = negated_guards(kern.format(cond=cond), "x.cu", "f")
        assert got is not None and f"if ({want}) return;" in got, (cond, got)
    for cond in ("!(a[c] < t)", "!(c < N && t > 0.5f)", "!(c < 2.5)", "!(c < N) && r < M", "!(c++ < N)",
                 "!((float)c / (float)M < 1)", "!(static_cast<float>(c) < M)", "!(min(c, M) < N)"):
        assert negated_guards(kern.format(cond=cond), "x.cu", "f") is None, cond
    # a name that is an int in one place and a float in another is not read as an integer
    shadow = kern.format(cond="!(t < 1 && c < N)").replace("out[r * N + c] =", "for (int t = 0; t < 2; ++t) out[r * N + c] +=")
    assert negated_guards(shadow, "x.cu", "f") is None


def test_a_templates_helper_keeps_its_return_conversion_and_a_functor_reading_members_is_left_alone():
    text = """template <class T> __device__ T scale(T x, float s) { return x * s; }
template <class T> __device__ T add(T a, T b) { return a + b; }
template <class T> __device__ T relu(T x) { return x > T(0) ? x : T(0); }
struct Scale { float s = 2.f; __device__ float operator()(float x) const { return s * x; } };
__global__ void k(const int* in, const unsigned char* c, const float* f, int* o, unsigned char* u, float* g, float s) {
  int i = threadIdx.x;
  o[i] = scale(in[i], 0.5f) * 3;
  u[i] = add(c[i], c[i + 1]) / 2;
  o[i + 1] = scale(in[i], 0.5f);
  Scale op;
  g[i] = relu(f[i]) + op(f[i]) + s;
}
"""
    new = inline_expression_helpers(text, "t.cu", "k")
    body = new[new.index("__global__"):].replace(" ", "")
    assert "o[i]=((int)((in[i])*0.5f))*3;" in body  # converted back to int as the helper's return did
    assert "u[i]=((unsignedchar)((c[i])+(c[i+1])))/2;" in body  # (a uchar sum wraps)
    assert "o[i+1]=((in[i])*0.5f);" in body  # stored into an int: the store converts as the return did
    assert "float(0)" in body and "T(0)" not in body  # the template's T as the call gives it
    assert "op(f[i])" in body  # a functor reading its member `s`: the kernel's `s` is another name
