"""Static rules, group A: fp64, coalescing, vector loads, restrict, slow math (real nvcc)."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest

from kernelpro.profilers.compile import CompileOptions, compile_cuda
from kernelpro.profilers.profile import profile_file
from kernelpro.profilers.rules.coalescing import build_env, coalescing_tool, global_accesses, poly_text
from kernelpro.profilers.source import parse_source
from kernelpro.profilers.tools import Context, load_builtin

EX = Path(__file__).resolve().parent.parent / "examples"


@lru_cache(maxsize=None)
def report(name: str, text: str | None = None, flags: tuple = ()):
    return profile_file(EX / name, CompileOptions(extra_flags=flags), text=text)


def rule_advice(rep, rule):
    return [a for a in rep.advice if a.rule == rule]


def col_of(path: Path, line: int, token: str) -> int:
    return path.read_text().split("\n")[line - 1].index(token) + 1


def line_of(path: Path, token: str) -> int:
    """First code line (not a comment) containing token."""
    return next(i for i, ln in enumerate(path.read_text().split("\n"), 1)
                if token in ln and not ln.lstrip().startswith("//"))


def apply_edits(text: str, edits: list[dict]) -> str:
    """Apply LSP-style edits (1-based, end exclusive), last first."""
    lines = text.split("\n")
    for e in sorted(edits, key=lambda e: (e["line"], e["column"], e["end_line"], e["end_column"]), reverse=True):
        start = sum(len(ln) + 1 for ln in lines[: e["line"] - 1]) + e["column"] - 1
        end = sum(len(ln) + 1 for ln in lines[: e["end_line"] - 1]) + e["end_column"] - 1
        joined = "\n".join(lines)
        lines = (joined[:start] + e["new_text"] + joined[end:]).split("\n")
    return "\n".join(lines)


def fixed_text(rep, rule) -> str:
    edits = [e for a in rule_advice(rep, rule) if a.fix for e in a.fix["edits"]]
    edits = [dict(t) for t in dict.fromkeys(tuple(sorted(e.items())) for e in edits)]  # shared edits once
    assert edits, f"{rule} offered no fix"
    return apply_edits(Path(rep.path).read_text(), edits)


def source_ctx(text: str, path: str = "/tmp/k.cu") -> Context:
    return Context(source=parse_source(text, path), artifact=None)


def write(tmp_path, text, name="k.cu") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_rules_registered():
    reg = load_builtin()
    for name, rule in [("fp64", "fp64-in-float-kernel"), ("coalescing", "uncoalesced-access"),
                       ("vector_loads", "narrow-global-access"), ("restrict", "missing-restrict"),
                       ("slow_math", "slow-math-in-loop")]:
        assert rule in reg[name].rules
        assert len(reg[name].description) > 150


# --- fp64-in-float-kernel ------------------------------------------------------
def test_fp64_literals_found_at_their_columns():
    rep = report("a_fp64_literal.cu")
    assert rep.ok
    got = {(a.line, a.column, a.end_column) for a in rule_advice(rep, "fp64-in-float-kernel")}
    p = EX / "a_fp64_literal.cu"
    want = set()
    for tok in ("0.7978845608", "0.044715", "0.5", "1.0"):
        ln = line_of(p, tok + " ")
        c = col_of(p, ln, tok + " ")
        want.add((ln, c, c + len(tok)))
    assert got == want
    a = rule_advice(rep, "fp64-in-float-kernel")[0]
    ev = {e.name: e.value for e in a.evidence}
    assert ev["FP64 instructions on this line"] > 0
    assert ev["FP64 instructions in kernel"] >= ev["FP64 instructions on this line"]
    assert ev["FP64:FP32 throughput"] == "1/2"
    assert "f" == a.fix["edits"][0]["new_text"]


def test_fp64_consumer_arch_ratio():
    rep = profile_file(EX / "a_fp64_literal.cu", CompileOptions(arch="sm_86"))
    a = rule_advice(rep, "fp64-in-float-kernel")
    assert a and all("1/64" in x.message for x in a)


def test_fp64_silent_on_fixed_twin():
    rep = report("a_fp64_literal_fixed.cu")
    assert rep.ok and not rule_advice(rep, "fp64-in-float-kernel")


def test_fp64_fix_compiles_and_clears():
    rep = report("a_fp64_literal.cu")
    text = fixed_text(rep, "fp64-in-float-kernel")
    assert compile_cuda(EX / "a_fp64_literal.cu", text=text).ok
    assert not rule_advice(report("a_fp64_literal.cu", text), "fp64-in-float-kernel")


POW_INT = """__global__ void sq(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = pow(x[i], 2) + sqrt(x[i]);
}
"""


def test_fp64_double_call_with_int_argument(tmp_path):
    p = write(tmp_path, POW_INT)
    rep = profile_file(p)
    adv = rule_advice(rep, "fp64-in-float-kernel")
    assert len(adv) == 1  # pow(float, int) is double; sqrt(float) picks the float overload
    a = adv[0]
    assert (a.line, a.column) == (3, POW_INT.split("\n")[2].index("pow(") + 1)
    text = apply_edits(POW_INT, a.fix["edits"])
    assert "powf(x[i], 2)" in text
    p2 = write(tmp_path, text, "k2.cu")
    rep2 = profile_file(p2)
    assert rep2.ok and not rule_advice(rep2, "fp64-in-float-kernel")


def test_fp64_silent_on_double_kernel(tmp_path):
    p = write(tmp_path, """__global__ void dscale(const double* x, double* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0 * x[i] + 0.5;
}
""")
    rep = profile_file(p)
    assert rep.ok and not rule_advice(rep, "fp64-in-float-kernel")


def test_fp64_ignores_compile_time_conversions(tmp_path):
    # float s = 0.5; and fmaxf(x, 1e-3) convert at compile time: no FP64 SASS, no advice
    p = write(tmp_path, """__global__ void k(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.5;
  if (i < n) y[i] = fmaxf(x[i], 1e-3) * s;
}
""")
    rep = profile_file(p)
    assert rep.ok and not rule_advice(rep, "fp64-in-float-kernel")


# --- uncoalesced-access ----------------------------------------------------------
def test_transpose_write_uncoalesced():
    rep = report("a_naive_transpose.cu")
    adv = rule_advice(rep, "uncoalesced-access")
    assert len(adv) == 1
    a = adv[0]
    p = EX / "a_naive_transpose.cu"
    ln = line_of(p, "out[x * height + y]")
    assert (a.line, a.column) == (ln, col_of(p, ln, "out[x * height + y]"))
    assert "out" in a.message and "32 sectors where 4 would do" in a.message
    ev = {e.name: e.value for e in a.evidence}
    assert ev["stride between threads"] == "height"
    assert ev["sectors per warp request"] == 32 and ev["ideal sectors per warp request"] == 4
    assert a.gain == 8.0 and "upper bound" in a.gain_note
    assert "shared" in a.remedy and "[33]" in a.remedy


def test_transpose_fixed_twin_silent():
    rep = report("a_naive_transpose_fixed.cu")
    assert rep.ok and not rule_advice(rep, "uncoalesced-access")


def coalescing(text: str):
    return coalescing_tool(source_ctx(text))


def test_row_through_two_variables():
    adv = coalescing("""__global__ void rowsum(const float* a, float* s, int N) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int row = t;
  float acc = 0.0f;
  for (int k = 0; k < N; ++k) acc += a[row * N + k];
  s[row] = acc;
}
""")
    assert len(adv) == 1
    a = adv[0]
    assert a.line == 5 and a.message.startswith("the read of a[row * N + k]")
    assert {e.name: e.value for e in a.evidence}["stride between threads"] == "N"
    assert "`k`" in a.remedy  # swap the thread index and the loop index


def test_packed_accesses_through_a_cast_are_coalesced():
    """A thread reading or writing one 16-byte pack at &x[i * width] moves consecutive packs: no
    finding; a pack of 16 bytes every 32 is still reported; so is a scalar read at that stride."""
    adv = coalescing("""#include <cuda_bf16.h>
template <class T, int N> struct alignas(sizeof(T) * N) pack { T v[N]; };
__global__ void k(float* out, const float* in, __nv_bfloat16* y, const __nv_bfloat16* x, long long b) {
  const long long t = threadIdx.x + b * blockDim.x;
  float4 v = *reinterpret_cast<const float4*>(&in[t * 4]);
  *(float4*)(&out[t * 4]) = v;
  pack<__nv_bfloat16, 8> p = *reinterpret_cast<const pack<__nv_bfloat16, 8>*>(&x[t * 8]);
  *reinterpret_cast<int4*>(&y[t * 8]) = *reinterpret_cast<const int4*>(&p);
  float4 w = *reinterpret_cast<const float4*>(&in[t * 8]);
  out[t * 8] = w.x + in[t * 4 + 1];
}
""")
    assert sorted((a.line, a.message.split(" on line")[0]) for a in adv) == [
        (9, "the read of in[t * 8]"), (10, "the read of in[t * 4 + 1]"), (10, "the write to out[t * 8]")]


def test_runs_of_sixteen_bytes_per_thread_are_a_vector_case():
    """Each thread walking its own 8 consecutive bf16 values (16 bytes) is the vector-load rule's
    case, not an uncoalesced one; 16 floats per thread still is."""
    adv = coalescing("""#include <cuda_bf16.h>
__global__ void k(__nv_bfloat16* y, const __nv_bfloat16* x, float* o, const float* z) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int v = 0; v < 8; ++v) y[t * 8 + v] = x[t * 8 + v];
  for (int v = 0; v < 16; ++v) o[t * 16 + v] = z[t * 16 + v];
}
""")
    assert sorted(a.message.split(" on line")[0] for a in adv) == ["the read of z[t * 16 + v]",
                                                                   "the write to o[t * 16 + v]"]


def test_constant_stride_sectors():
    adv = coalescing("""__global__ void k(float* out, const float* in) {
  out[threadIdx.x * 2] = in[threadIdx.x * 16];
}
""")
    by_array = {a.message.split("[")[0].split()[-1]: a for a in adv}
    assert set(by_array) == {"out", "in"}
    assert "8 sectors where 4 would do" in by_array["out"].message and by_array["out"].gain == 2.0
    assert "32 sectors where 4 would do" in by_array["in"].message


def test_per_thread_param_stride():
    adv = coalescing("""__global__ void k(const float* in, float* out, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; ++i) s += in[threadIdx.x * n + i];
  out[threadIdx.x] = s;
}
""")
    assert [a.line for a in adv] == [3]


@pytest.mark.parametrize("body, stride", [
    ("int lane = threadIdx.x % 32; out[lane * n] = in[threadIdx.x];", "n"),
    ("int idx = blockIdx.x * blockDim.x + threadIdx.x; int i = idx / n, j = idx % n; out[idx] = in[j * n + i];", "n"),
])
def test_coalescing_follows_remainders_of_the_thread_index(body, stride):
    # `j = idx % n` moves like idx between neighbouring lanes (the lane view of the shared analysis)
    text = "__global__ void k(const float* in, float* out, int n) {\n  " + body + "\n}\n"
    adv = coalescing(text)
    assert len(adv) == 1 and f"moves {stride} elements" in adv[0].message


@pytest.mark.parametrize("body", [
    "int i = threadIdx.x + blockIdx.x * blockDim.x; if (i < n) out[i] = in[i];",  # stride 1
    "out[threadIdx.y * n + blockIdx.x] = in[threadIdx.y * n];",  # threadIdx.y only
    "int i = threadIdx.x; out[f(i) * n] = in[i];",  # unknown call in the index
    "for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) out[i] = in[i];",
    "__shared__ float tile[32][33]; tile[threadIdx.x][0] = in[threadIdx.x]; out[threadIdx.x] = tile[0][threadIdx.x];",
    "int w = threadIdx.x / 32; out[w * n] = in[threadIdx.x];",  # a warp's quotient: the same for its lanes
    "int i = 0; if (n > 3) i = threadIdx.x * n; out[i] = in[threadIdx.x];",  # conditional reassignment
    "out[2 * threadIdx.x] = in[2 * threadIdx.x]; out[2 * threadIdx.x + 1] = in[2 * threadIdx.x + 1];",  # pairs
])
def test_coalescing_silent(body):
    text = "__device__ int f(int);\n__global__ void k(const float* in, float* out, int n) {\n  " + body + "\n}\n"
    assert coalescing(text) == []


def test_derived_pointer_and_reassignment():
    text = """__global__ void k(const float* in, float* out, int n) {
  const float* row = in + threadIdx.x * n;
  int x = threadIdx.x;
  out[x] = row[0];
  x = threadIdx.x * n;
  out[x] = 1.0f;
}
"""
    src = parse_source(text, "/tmp/k.cu")
    env = build_env(src, src.kernels[0])
    strides = {(a.array, a.line): poly_text(a.stride) for a in global_accesses(env)}
    assert strides == {("out", 4): "1", ("in", 4): "n", ("out", 6): "n"}
    assert sorted(a.line for a in coalescing(text)) == [4, 6]


# --- narrow-global-access --------------------------------------------------------
def test_scale4_narrow_loads_and_stores():
    rep = report("a_scale4.cu")
    adv = rule_advice(rep, "narrow-global-access")
    p = EX / "a_scale4.cu"
    ln = line_of(p, "y[i + j] = a * x[i + j]")
    got = {(a.line, a.column) for a in adv}
    assert got == {(ln, col_of(p, ln, "y[i + j]")), (ln, col_of(p, ln, "x[i + j]"))}
    for a in adv:
        ev = {e.name: e.value for e in a.evidence}
        assert ev["consecutive elements per thread"] == 4
        assert any(k.endswith("widths on this line") and "128" not in str(v) for k, v in ev.items())
        assert "float4" in a.message and "tail" in a.remedy
    # each thread covers its own 4 elements: not reported as uncoalesced
    assert not rule_advice(rep, "uncoalesced-access")


def test_scale4_fixed_twin_silent():
    rep = report("a_scale4_fixed.cu")
    assert rep.ok and not rule_advice(rep, "narrow-global-access")
    ops = {i.opcode for b in rep.artifact.kernels for i in b.sass if i.base in ("LDG", "STG")}
    assert any(".128" in o for o in ops)  # the twin really uses 128-bit accesses


def test_explicit_offsets(tmp_path):
    p = write(tmp_path, """__global__ void k(const float* __restrict__ x, float* __restrict__ y) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  y[2 * t] = x[4 * t] + x[4 * t + 1] + x[4 * t + 2] + x[4 * t + 3];
  y[2 * t + 1] = 0.0f;
}
""")
    rep = profile_file(p)
    adv = rule_advice(rep, "narrow-global-access")
    assert [(a.line, a.message.split(" on ")[0]) for a in adv if "loads" in a.message] == [(3, "x[4 * t]")]


# --- missing-restrict --------------------------------------------------------------
def test_restrict_fires_with_fix_for_all_params():
    rep = report("a_missing_restrict.cu")
    adv = rule_advice(rep, "missing-restrict")
    assert len(adv) == 1
    a = adv[0]
    p = EX / "a_missing_restrict.cu"
    ln = line_of(p, "float* in,")
    assert (a.line, a.column) == (ln, col_of(p, ln, "float* in"))
    assert "`in`, `w`" in a.message and "out" in a.message
    texts = sorted(e["new_text"] for e in a.fix["edits"])
    assert texts == ["const float* __restrict__ in", "const float* __restrict__ w", "float* __restrict__ out"]
    assert any("CONSTANT" in e.value for e in a.evidence if e.source == "sass")


def test_restrict_fix_compiles_and_clears():
    rep = report("a_missing_restrict.cu")
    text = fixed_text(rep, "missing-restrict")
    rep2 = report("a_missing_restrict.cu", text)
    assert rep2.ok and not rule_advice(rep2, "missing-restrict")
    ops = [i.opcode for b in rep2.artifact.kernels for i in b.sass if i.base == "LDG"]
    assert ops and all("CONSTANT" in o for o in ops)


def test_restrict_fixed_twin_silent():
    rep = report("a_missing_restrict_fixed.cu")
    assert rep.ok and not rule_advice(rep, "missing-restrict")


@pytest.mark.parametrize("use, flagged", [
    ("atomicAdd(&p[i], 1.0f);", False),
    ("g(p);", False),
    ("float* q = p + 1; q[i] = 0.0f;", False),
    ("*(p + i) = 2.0f;", False),
    ("p[i] += 1.0f;", False),
    ("out[i] = __ldg(&p[i]);", True),
    ("const float* q = p + 1; out[i] = q[i];", True),
    ("out[i] = p[i] * p[i + 1];", True),
])
def test_restrict_read_only_analysis(use, flagged):
    text = ("__device__ void g(float*);\n__global__ void k(float* p, float* __restrict__ out) {\n"
            "  int i = threadIdx.x;\n  " + use + "\n}\n")
    from kernelpro.profilers.rules.restrict import restrict_tool
    adv = restrict_tool(source_ctx(text))
    assert bool(adv) == flagged
    if flagged:
        assert adv[0].line == 2 and "`p`" in adv[0].message


def test_restrict_multiline_signature_edits_exact():
    text = "__global__ void k(float*   a,\n                  float *b, int n)\n{ b[n] = a[n]; }\n"
    from kernelpro.profilers.rules.restrict import restrict_tool
    adv = restrict_tool(source_ctx(text))
    new = apply_edits(text, adv[0].fix["edits"])
    assert new.split("\n")[:2] == ["__global__ void k(const float* __restrict__ a,",
                                   "                  float* __restrict__ b, int n)"]
    assert restrict_tool(source_ctx(new)) == []


# --- slow-math-in-loop -------------------------------------------------------------
def test_slow_math_fires_on_division_and_expf():
    rep = report("a_slow_math.cu")
    adv = rule_advice(rep, "slow-math-in-loop")
    p = EX / "a_slow_math.cu"
    d_ln, e_ln = line_of(p, "/ sigma;"), line_of(p, "expf(")
    got = {(a.line, a.column) for a in adv}
    assert got == {(d_ln, col_of(p, d_ln, "(q - points[j]) / sigma")), (e_ln, col_of(p, e_ln, "expf("))}
    div = next(a for a in adv if a.line == d_ln)
    assert "inv_sigma" in div.remedy  # sigma is loop-invariant: hoist the reciprocal
    ex = next(a for a in adv if a.line == e_ln)
    assert "__expf" in ex.remedy and "exp2f" in ex.remedy
    assert {e.name: e.value for e in ex.evidence}["SASS instructions on this line"] >= 12


def test_slow_math_leaves_double_divisions_alone(tmp_path):
    """x[j] / s with x double is a double division: __fdividef would make it a float one."""
    f = tmp_path / "k.cu"
    f.write_text("__global__ void kd(double* y, const double* x, float s, int n) {\n"
                 "  for (int j = threadIdx.x; j < n; j += blockDim.x) { y[j] = x[j] / s; }\n}\n"
                 "__global__ void kf(float* y, const float* x, float s, int n) {\n"
                 "  for (int j = threadIdx.x; j < n; j += blockDim.x) { y[j] = x[j] / s; }\n}\n")
    adv = rule_advice(profile_file(f, CompileOptions()), "slow-math-in-loop")
    assert [(a.kernel, a.line) for a in adv] == [("kf", 5)] and "2^126" in adv[0].remedy


def test_slow_math_names_tanhf_for_fast_math(tmp_path):
    """tanhf has no intrinsic: the advice is --use_fast_math (one tanh.approx), with no source fix;
    tanh of a double is left alone, and a fast-math build is silent."""
    f = tmp_path / "k.cu"
    f.write_text("__global__ void kf(float* y, const float* x, int n) {\n"
                 "  for (int j = threadIdx.x; j < n; j += blockDim.x) { y[j] = 0.5f * (1.0f + tanhf(x[j])); }\n}\n"
                 "__global__ void kd(double* y, const double* x, int n) {\n"
                 "  for (int j = threadIdx.x; j < n; j += blockDim.x) { y[j] = tanh(x[j]); }\n}\n")
    adv = rule_advice(profile_file(f, CompileOptions()), "slow-math-in-loop")
    assert [(a.kernel, a.line) for a in adv] == [("kf", 2)]
    assert "--use_fast_math" in adv[0].remedy and "tanh.approx.f32" in adv[0].remedy and adv[0].fix is None
    fast = CompileOptions(extra_flags=("--use_fast_math",))
    assert not rule_advice(profile_file(f, fast), "slow-math-in-loop")


def test_slow_math_fixed_twin_and_fast_math_silent():
    assert not rule_advice(report("a_slow_math_fixed.cu"), "slow-math-in-loop")
    assert not rule_advice(report("a_slow_math.cu", None, ("--use_fast_math",)), "slow-math-in-loop")


def test_slow_math_fix_compiles_and_clears():
    rep = report("a_slow_math.cu")
    text = fixed_text(rep, "slow-math-in-loop")
    rep2 = report("a_slow_math.cu", text)
    assert rep2.ok and not rule_advice(rep2, "slow-math-in-loop")


def test_powf_square_and_outside_loop(tmp_path):
    text = """__global__ void k(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = expf(x[i]);
  for (int j = 0; j < n; ++j) acc += powf(x[j], 2.0f);
  y[i] = acc;
}
"""
    rep = profile_file(write(tmp_path, text))
    adv = rule_advice(rep, "slow-math-in-loop")
    assert [a.line for a in adv] == [4]  # expf outside the loop is not hot
    new = apply_edits(text, adv[0].fix["edits"])
    assert "(x[j] * x[j])" in new
    rep2 = profile_file(write(tmp_path, new, "k2.cu"))
    assert rep2.ok and not rule_advice(rep2, "slow-math-in-loop")


def test_fp64_macro_and_unexplained_line(tmp_path):
    text = """#define DECAY 0.9
__device__ double g_scale;
__global__ void ema(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = DECAY * y[i] + x[i];
  if (i < n) x[i] > 0.0f ? y[i] = g_scale * x[i] : 0.0f;
}
"""
    rep = profile_file(write(tmp_path, text))
    adv = sorted(rule_advice(rep, "fp64-in-float-kernel"), key=lambda a: a.line)
    assert [(a.line, a.column) for a in adv] == [(5, text.split("\n")[4].index("DECAY") + 1), (6, None)]
    assert "#define DECAY 0.9" in adv[0].message
    assert adv[0].fix["edits"] == [{"line": 1, "column": 18, "end_line": 1, "end_column": 18, "new_text": "f"}]
    assert "no double literal" in adv[1].message and adv[1].fix is None
