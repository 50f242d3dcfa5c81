"""The loop-and-thread analysis (profilers/analysis) and the restructuring transforms built on
it (optimizer/restructure): each transform on several spellings of its pattern, compiled with
nvcc and run in the CPU emulator against numpy; and the cases where it must not apply."""
from __future__ import annotations

import math
import os
import shutil

import numpy as np
import pytest

from compile_batch import compile_each
from emu_run import Batch

from kernelpro.optimizer.restructure import columns, elementwise, rows
from kernelpro.optimizer.restructure.launch import cover, rewrite_launches, rows_host
from kernelpro.optimizer.restructure.passes import simplify
from kernelpro.optimizer.restructure.text import Refuse, span_text
from kernelpro.profilers.analysis.loops import MAX, MIN, ONLINE, OR, PROD, SUM, analyze_kernel
from kernelpro.profilers.analysis.patterns import column_loop, is_elementwise, row_kernel, row_major_loops
from kernelpro.profilers.analysis.types import TypeTable
from kernelpro.profilers.compile import CompileOptions, compile_cuda
from kernelpro.profilers.source import parse_source

GXX = shutil.which("g++")
needs_gxx = pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
TEST_CU = os.path.join(os.path.dirname(__file__), "kp_restructure_test.cu")  # never written


def rk_of(text, name=None):
    src = parse_source(text, TEST_CU)
    k = src.kernel(name) if name else src.kernels[0]
    return src, row_kernel(src, k)


def compiles(text, kernel):
    art = compile_cuda(TEST_CU, CompileOptions(arch="sm_90"), text=text)
    assert art.ok and art.builds(kernel), "\n".join(d.message for d in art.errors) + "\n" + text
    return art


def compile_all(texts, kernel):
    """Each text compiles with its kernel, in as few nvcc calls as go together (tests/compile_batch.py)."""
    problems = compile_each(TEST_CU, [(kernel, t, ()) for t in texts], CompileOptions(arch="sm_90"))
    for t, problem in zip(texts, problems):
        assert problem is None, "\n".join(problem) + "\n" + t


# ---------------------------------------------------------------- types and thread indices


def test_type_table_follows_typedefs_using_macros_and_the_selected_branch(tmp_path):
    (tmp_path / "common.cuh").write_text("#pragma once\ntypedef unsigned int index_t;\n")
    text = """#include "common.cuh"
#define USE_BF16
#if defined(USE_BF16)
typedef __nv_bfloat16 floatX;
#else
typedef float floatX;
#endif
using acc_t = float;
#define real_t double
typedef floatX act_t;
"""
    p = tmp_path / "k.cu"
    p.write_text(text)
    t = TypeTable.of(parse_source(text, str(p)))
    assert t.scalar("const floatX").name == "bfloat16" and t.scalar("act_t *").bytes == 2
    assert t.scalar("acc_t").name == "float" and t.scalar("real_t").name == "double"
    assert t.scalar("index_t").kind == "int" and t.is_int("const index_t")
    assert t.scalar("uint").name == "uint32" and t.scalar("size_t").bytes == 8
    assert t.vector("float4")[1] == 4 and t.scalar("x128") is None


ROW_DECLS = ["int i = blockIdx.x * blockDim.x + threadIdx.x;",
             "const unsigned i = threadIdx.x + blockDim.x * blockIdx.x;",
             "uint i = blockIdx.x * blockDim.x + threadIdx.x;",
             "size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;",
             "const auto i = blockIdx.x * blockDim.x + threadIdx.x;",
             "int64_t i = blockIdx.x * blockDim.x + threadIdx.x;",
             "idx_t i = blockIdx.x * blockDim.x + threadIdx.x;",
             "int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;",
             "long i = ROW(blockIdx.x, blockDim.x, threadIdx.x);"]


@pytest.mark.parametrize("decl", ROW_DECLS)
def test_row_index_found_through_every_integer_spelling(decl):
    text = f"""typedef long long idx_t;
#define ROW(b, d, t) ((long)(b) * (d) + (t))
__global__ void k(float* out, const float* in, int n, int c) {{
  {decl}
  if (i < n) {{ float s = 0; for (int j = 0; j < c; ++j) s += in[i * c + j]; out[i] = s; }}
}}"""
    src, rk = rk_of(text)
    assert rk is not None and rk.row == "i" and rk.ok, rk and rk.reasons
    assert [lp.kind for lp in rk.loops] == ["spread"]
    from kernelpro.profilers.rules.coalescing import coalescing_tool
    from kernelpro.profilers.tools import Context
    adv = coalescing_tool(Context(source=src, artifact=None))
    assert [a.rule for a in adv] == ["uncoalesced-access"]  # in[i * c + j]: stride c between threads


def test_indices_through_function_like_macros_and_a_counter_reset_in_the_guard():
    """`dout[IDX(n, oc, OC)]` is followed through the macro; a while counter reset by `i = 0;`
    inside the row's guard block steps from 0 again (it was unknown)."""
    from kernelpro.profilers.rules.coalescing import coalescing_tool
    from kernelpro.profilers.tools import Context
    text = """#define IDX(r, c, ld) ((size_t)(r) * (ld) + (c))
__global__ void k(float* out, const float* in, int n, int c) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n) {
    int j = 0; float s = 0;
    while (j < c) { s += in[IDX(row, j, c)]; j++; }
    j = 0;
    while (j < c) { out[IDX(row, j, c)] = in[IDX(row, j, c)] / s; j++; }
  }
}"""
    src, rk = rk_of(text)
    assert rk is not None and rk.ok, rk and rk.reasons
    assert [lp.kind for lp in rk.loops] == ["spread", "spread"]
    assert all(a.index is not None for lp in rk.loops for a in lp.info.accesses)
    adv = coalescing_tool(Context(source=src, artifact=None))
    assert sorted(a.line for a in adv) == [6, 8, 8]  # stride c between threads, through the macro


def test_c89_declarations_move_to_their_first_assignment_only_where_that_is_safe():
    from kernelpro.optimizer.restructure.passes import declare_at_first_assignment
    text = """__global__ void k(float* out, const float* in, int n, int c) {
  int i, j, q, r;
  float s, t;
  i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    s = 0.0f;
    for (j = 0; j < c; j++) s += in[i * c + j];
    for (q = 0; q < c; q++) {}
    out[i] = s + q;
    if (s > 0) t = 1.0f; else t = 2.0f;
    out[i] += t;
    for (r = 0; r < c; r++) for (j = 0; j < r; j++) s += 1.0f;
  }
}"""
    new = declare_at_first_assignment(text, TEST_CU, "k")
    assert "int i = blockIdx.x * blockDim.x + threadIdx.x;" in new and "float s = 0.0f;" in new
    assert "for (int j = 0; j < c; j++) s" in new and "for (int j = 0; j < r; j++)" in new
    assert "for (int r = 0;" in new
    # q is read after its loop, t is set in two branches: both keep their declarations
    assert "for (q = 0;" in new and "int q;" in new and "float t;" in new and "if (s > 0) t = 1.0f;" in new
    compiles(new, "k")
    assert declare_at_first_assignment(new, TEST_CU, "k") is None  # nothing left to move


def test_helpers_that_loop_are_inlined_and_others_are_left_as_calls():
    from kernelpro.optimizer.restructure.passes import inline_loop_helpers
    text = """__device__ float row_sum(const float* p, int n) {
  float s = 0.0f;
  for (int j = 0; j < n; j++) s += p[j];
  return s;
}
__device__ float two_returns(const float* p, int n) {
  for (int j = 0; j < n; j++) if (p[j] < 0) return p[j];
  return 0.0f;
}
__device__ float steps(const float* p, int n) {
  float s = 0.0f;
  while (n > 0) { s += p[--n]; }
  return s;
}
__device__ float sq(float x) { return x * x; }
__global__ void k(float* out, const float* in, int n, int c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float* row = in + i * c;
    float s = row_sum(row, c);
    double d = row_sum(row + 1, c - 1);
    float a = two_returns(row, c), b = steps(row, c);
    out[i] = sq(s) + d + a + b;
  }
}"""
    new = inline_loop_helpers(text, TEST_CU, "k")
    body = new[new.index("__global__"):]
    # the returned local is the declared variable; parameters given a name are that name
    assert "float s = 0.0f;\n    for (int kp_row_sum1_j = 0; kp_row_sum1_j < c; kp_row_sum1_j++) s += row[kp_row_sum1_j];" in body
    # another type, or an argument that is an expression: a copy
    assert "const float* kp_row_sum2_p = (row + 1);" in body and "double d = (kp_row_sum2_s);" in body
    # two returns, a parameter assigned, no loop: calls as written
    assert "two_returns(row, c), b = steps(row, c);" in body and "sq(s)" in body
    compiles(new, "k")


def test_a_kernel_no_plan_recognises_gets_a_reason():
    from kernelpro.optimizer.restructure.api import Context, plans
    text = """__global__ void k(float* out, const float* in, int n, int c) {
  int row = blockIdx.x;
  if (threadIdx.x != 0 || row >= n) return;
  float s = 0; for (int j = 0; j < c; j++) s += in[row * c + j]; out[row] = s;
}"""
    ctx = Context(kernel="k", path=TEST_CU, launch={"grid": ["N"], "block": [32]}, base_launch=None, size_env={})
    got, why = plans(text, ctx)
    assert got == [] and len(why) == 1 and "one thread per row, element or column" in why[0]


def test_a_pointer_stepped_by_a_counted_loop_is_read_at_the_counter():
    from kernelpro.optimizer.restructure.passes import index_pointer_steps
    text = """__global__ void k(float* out, const float* in, int n, int c) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col < c) {
    const float* p = in + col; const float* q = in + col; const float* r = in + col;
    float s = 0;
    for (int i = 2; i < n; i++) { s += *p + p[1]; p += c; }
    for (int i = 0; i < n; i++) { s += *q; if (s > 1) break; q += c; }
    for (int i = 0; i < n; i++) { s += *r; r += c; }
    out[col] = s + *r;
  }
}"""
    new = index_pointer_steps(text, TEST_CU, "k")
    assert "s += p[(long long)(i - (2)) * (c)] + p[(long long)(i - (2)) * (c) + (1)];" in new
    assert "p += c" not in new and "q += c" in new and "r += c" in new  # a break; r read after its loop
    compiles(new, "k")


# ---------------------------------------------------------------- reductions

UPDATES = [
    ("s += x[j];", SUM), ("s = s + x[j];", SUM), ("s = x[j] + s;", SUM), ("s -= x[j];", SUM),
    ("s *= x[j];", PROD), ("s = fmaxf(s, x[j]);", MAX), ("s = max(x[j], s);", MAX),
    ("if (x[j] > s) s = x[j];", MAX), ("if (s < x[j]) { s = x[j]; }", MAX), ("s = x[j] > s ? x[j] : s;", MAX),
    ("s = (s > x[j]) ? s : x[j];", MAX), ("s = fminf(s, x[j]);", MIN), ("if (x[j] < s) s = x[j];", MIN),
    ("if (c[j]) s += x[j];", SUM),
]


@pytest.mark.parametrize("update, op", UPDATES, ids=[u for u, _ in UPDATES])
def test_reductions_are_recognised_in_every_spelling(update, op):
    text = f"""__global__ void k(float* out, const float* x, const int* c, int n) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int j = 0; j < n; j++) {{ {update} }}
  out[i] = s;
}}"""
    src = parse_source(text)
    (lp,) = analyze_kernel(src, src.kernels[0]).loops
    assert [(r.var, r.op) for r in lp.reductions] == [("s", op)] and not lp.carried, (lp.carried, lp.reductions)


ONLINE_FORMS = [
    """float prev = m; float v = x[j];
       if (v > m) { m = v; s = s * expf(prev - m) + expf(v - m); } else { s += expf(v - m); }""",
    """const float mn = fmaxf(m, x[j]); s = s * expf(m - mn) + expf(x[j] - mn); m = mn;""",
    """if (x[j] > m) { s *= __expf(m - x[j]); m = x[j]; } s += __expf(x[j] - m);""",
    """float v = 2.0f * x[j]; float mn = v > m ? v : m; s = s * exp2f(m - mn) + exp2f(v - mn); m = mn;""",
]


@pytest.mark.parametrize("body", ONLINE_FORMS)
def test_online_softmax_pairs_are_recognised_by_running_the_body(body):
    text = f"""__global__ void k(float* out, const float* x, int n) {{
  float m = -INFINITY, s = 0.0f;
  for (int j = 0; j < n; j++) {{ {body} }}
  out[0] = m + logf(s);
}}"""
    src = parse_source(text)
    (lp,) = analyze_kernel(src, src.kernels[0]).loops
    assert {(r.var, r.op) for r in lp.reductions} == {("m", ONLINE), ("s", ONLINE)}, lp.carried
    assert lp.independent


CARRIED = [
    ("run += x[j]; y[j] = run;", "run"),  # a prefix sum: the value is used each iteration
    ("s = s * 0.5f + x[j];", "s"),  # not associative
    ("s = x[j] - s;", "s"),  # not associative
    ("if (x[j] > s) { s = x[j]; at = j; }", "at"),  # arg-max: the index depends on the order
    ("s += x[j]; if (s > 10.0f) s = 0.0f;", "s"),
]


@pytest.mark.parametrize("body, var", CARRIED)
def test_loop_carried_updates_are_not_reductions(body, var):
    text = f"""__global__ void k(float* y, const float* x, int n) {{
  float s = 0.0f, run = 0.0f; int at = 0;
  for (int j = 0; j < n; j++) {{ {body} }}
  y[0] = s + run + at;
}}"""
    src = parse_source(text)
    (lp,) = analyze_kernel(src, src.kernels[0]).loops
    assert var in lp.carried and not lp.independent


def test_memory_dependences_need_restrict_or_the_same_index():
    base = """__global__ void k(float* {r}out, const float* {r}in, int n) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = 0; j < n - 1; j++) out[i * n + j] = in[i * n + j + 1];
}}"""
    src = parse_source(base.format(r=""))
    (lp,) = analyze_kernel(src, src.kernels[0], keep={"i"}).loops
    assert lp.memory_deps and not lp.independent  # out and in may be the same buffer
    src = parse_source(base.format(r="__restrict__ "))
    (lp,) = analyze_kernel(src, src.kernels[0], keep={"i"}).loops
    assert lp.independent
    same = base.format(r="").replace("in[i * n + j + 1]", "in[i * n + j]")
    src = parse_source(same)
    (lp,) = analyze_kernel(src, src.kernels[0], keep={"i"}).loops
    assert lp.independent  # in place or not, iteration j touches element j only


@pytest.mark.parametrize("body, why", [
    ("if (x[j] < 0) break; s += x[j];", "break"),
    ("s += x[j]; __syncthreads();", "barrier"),
    ("atomicAdd(y, x[j]);", "atomic"),
    ("buf[j % 4] = x[j];", "not a kernel buffer"),
    ("y[0] = x[j];", "same place"),
])
def test_loops_that_escape_or_share_state_are_not_independent(body, why):
    text = f"""__global__ void k(float* y, const float* x, int n) {{
  float s = 0.0f; float buf[4];
  for (int j = 0; j < n; j++) {{ {body} }}
  y[1] = s + buf[0];
}}"""
    src = parse_source(text)
    (lp,) = analyze_kernel(src, src.kernels[0]).loops
    assert not lp.independent
    assert any(why in w for w in lp.escapes + lp.memory_deps + list(lp.carried.values())), (lp.escapes, lp.memory_deps)


# ---------------------------------------------------------------- a team per row

ROW_VARIANTS = {
    # thread per row, plain
    "for_if": """__global__ void rowsum(float* out, const float* in, int n, int c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float s = 0.0f; for (int j = 0; j < c; j++) s += in[i * c + j]; out[i] = s; }
}""",
    # unsigned index, early return, while loop, pointer offset
    "while_return": """__global__ void rowsum(float* out, const float* in, int n, int c) {
  const unsigned r = threadIdx.x + blockIdx.x * blockDim.x;
  if (r >= (unsigned)n) return;
  const float* x = in + (size_t)r * c;
  float acc = 0.f;
  int j = 0;
  while (j < c) { acc += x[j] * 0.5f; ++j; }
  out[r] = 2.0f * acc;
}""",
    # size_t index, typedef'd element, max with a ternary then a normalising pass
    "typedef_two_pass": """typedef float real;
__global__ void rowsum(real* out, const real* in, int n, int c) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < (size_t)n) {
    const real* x = in + i * c;
    real m = -INFINITY;
    for (int j = 0; j < c; ++j) m = x[j] > m ? x[j] : m;
    real s = 0;
    for (int j = 0; j < c; ++j) s += x[j] - m;
    out[i] = s / c;
  }
}""",
    # grid-stride loop over the rows
    "grid_stride": """__global__ void rowsum(float* out, const float* in, int n, int c) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float s = 0.0f;
    for (int j = 0; j < c; j++) s += in[i * c + j];
    out[i] = s;
  }
}""",
    # bf16 storage with a typedef, float accumulation, a second pass that writes the row
    "bf16_scale": """#include <cuda_bf16.h>
typedef __nv_bfloat16 floatX;
__global__ void rowsum(floatX* out, const floatX* in, int n, int c) {
  auto i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float ss = 0.0f;
    for (int j = 0; j < c; j++) { float v = __bfloat162float(in[i * c + j]); ss += v * v; }
    float k = rsqrtf(ss / c + 1e-6f);
    for (int j = 0; j < c; j++) out[i * c + j] = __float2bfloat16(__bfloat162float(in[i * c + j]) * k);
  }
}""",
}


def _bf(a):
    u = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def _unbf(b):
    return (np.asarray(b, np.uint16).astype(np.uint32) << 16).view(np.float32)


def _row_case(name, n, c, rng):
    x = rng.standard_normal((n, c)).astype(np.float32)
    if name == "bf16_scale":
        xb = _bf(x)
        xf = _unbf(xb).astype(np.float64)
        k = 1.0 / np.sqrt((xf * xf).mean(1) + 1e-6)
        return [np.zeros(n * c, np.uint16), xb, n, c], (xf * k[:, None]).reshape(-1), 0, 2e-2
    if name == "typedef_two_pass":
        want = (x - x.max(1, keepdims=True)).sum(1) / c
        return [np.full(n, np.nan, np.float32), x, n, c], want, 0, 1e-4
    scale = 1.0
    return [np.full(n, np.nan, np.float32), x, n, c], x.astype(np.float64).sum(1) * scale, 0, 1e-4


@needs_gxx
@pytest.mark.slow
def test_row_to_warp_and_block_on_five_spellings(tmp_path):
    runs = []
    for name, text in ROW_VARIANTS.items():
        src, rk = rk_of(text)
        assert rk.ok and rk.spread and row_major_loops(rk), (name, rk.reasons)
        for team in (rows.Team("warp"), rows.Team("block"), rows.Team("warp", 4), rows.Team("block", 8)):
            new = rows.team_rows(src, rk, team)
            runs.append((name, team, new))
    compile_all([t for *_, t in runs], "rowsum")
    batch = Batch([(t, "rowsum") for _, _, t in runs], str(tmp_path))
    rng = np.random.default_rng(3)
    for i, (name, team, _) in enumerate(runs):
        n, c = 5, 203  # rows of an odd length: every row starts at another alignment
        args, want, out_i, tol = _row_case(name, n, c, rng)
        per_block = 8 if team.kind == "warp" else 1
        grid = [math.ceil(n / per_block)]
        if name == "grid_stride":
            grid = [1]  # fewer blocks than rows: the loop strides
        got = batch.run(i, args, grid, [256 if team.kind == "warp" else 128])[out_i]
        got = _unbf(got) if got.dtype == np.uint16 else got
        np.testing.assert_allclose(got.astype(np.float64).reshape(-1), want, rtol=tol, atol=tol,
                                   err_msg=f"{name} {team}")


def test_row_transform_refuses_what_it_cannot_prove():
    cases = {
        "prefix": """__global__ void k(float* out, const float* in, int n, int c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float run = 0; for (int j = 0; j < c; j++) { run += in[i*c+j]; out[i*c+j] = run; } } }""",
        "shared": """__global__ void k(float* out, const float* in, int n, int c) {
  __shared__ float t[32]; int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float s = 0; for (int j = 0; j < c; j++) s += in[i*c+j]; t[threadIdx.x % 32] = s; out[i] = s; } }""",
        "alias": """__global__ void k(float* out, const float* in, int n, int c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { for (int j = 0; j + 1 < c; j++) out[i*c+j] = in[i*c+j+1]; } }""",
        "row_written": """__global__ void k(float* out, const float* in, int n, int c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float s = 0; for (int j = 0; j < c; j++) s += in[i*c+j]; i += 1; out[i] = s; } }""",
    }
    for name, text in cases.items():
        src, rk = rk_of(text)
        with pytest.raises(Refuse):
            rows.team_rows(src, rk, rows.Team("warp"))


def test_aliasing_rewrites_need_restrict_and_plans_say_they_add_it():
    softmax = """__global__ void sm(float* out, const float* in, int n, int c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float m = -INFINITY; for (int j = 0; j < c; j++) m = fmaxf(m, in[i*c+j]);
    float s = 0; for (int j = 0; j < c; j++) { out[i*c+j] = expf(in[i*c+j] - m); s += out[i*c+j]; }
    for (int j = 0; j < c; j++) out[i*c+j] /= s;
  }
}"""
    plain, done = simplify(softmax, TEST_CU, "sm")
    assert "online max and sum" not in done  # out may be in: recomputing from in would be wrong
    restricted = softmax.replace("float* out, const float* in", "float* __restrict__ out, const float* __restrict__ in")
    text, done = simplify(restricted, TEST_CU, "sm")
    assert done.count("online max and sum") == 1 and "drop a dead store" in done
    src, rk = rk_of(text)
    assert [len(rl.info.reductions) for rl in rk.spread] == [2, 0]  # one online pass, one write pass
    from kernelpro.optimizer.restructure.api import Context, row_plans
    ctx = Context(kernel="sm", path=TEST_CU, launch={"grid": ["cdiv(n, 256)"], "block": [256]}, base_launch=None,
                  size_env={"large": {"n": 1024, "c": 50257}})
    plans = row_plans(softmax, ctx)
    cand = plans[0].build(plans[0].space[0])
    assert "add __restrict__ to out, in" in cand.description and "online max and sum" in cand.description
    assert any("never overlap" in n for n in cand.notes)


@needs_gxx
@pytest.mark.slow
def test_online_fusion_and_forwarding_compute_softmax_and_cross_entropy(tmp_path):
    softmax = """__global__ void sm(float* __restrict__ out, const float* __restrict__ in, int n, int c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float* x = in + i * c; float* y = out + i * c;
    float m = -INFINITY; for (int j = 0; j < c; j++) if (x[j] > m) m = x[j];
    float s = 0.0f; for (int j = 0; j < c; j++) { y[j] = expf(x[j] - m); s += y[j]; }
    for (int j = 0; j < c; j++) y[j] /= s;
  }
}"""
    xent = """__global__ void sm(float* loss, const float* logits, const int* t, int n, int c) {
  unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  const float* x = logits + (size_t)r * c;
  float m = -INFINITY;
  for (int j = 0; j < c; ++j) m = fmaxf(m, x[j]);
  float z = 0.0f;
  for (int j = 0; j < c; ++j) z += __expf(x[j] - m);
  loss[r] = logf(z) + m - x[t[r]];
}"""
    items = []
    for text in (softmax, xent):
        fused, done = simplify(text, TEST_CU, "sm")
        assert "online max and sum" in done
        src, rk = rk_of(fused)
        for team in (rows.Team("warp", 4), rows.Team("block", 4)):
            items.append((text, team, rows.team_rows(src, rk, team)))
    batch = Batch([(t, "sm") for _, _, t in items], str(tmp_path))
    rng = np.random.default_rng(5)
    n, c = 3, 1001
    x = rng.standard_normal((n, c)).astype(np.float32) * 3
    tgt = rng.integers(0, c, n).astype(np.int32)
    e = np.exp(x - x.max(1, keepdims=True))
    for i, (text, team, _) in enumerate(items):
        grid = [1] if team.kind == "warp" else [n]
        block = [256] if team.kind == "warp" else [128]
        if text is softmax:
            got = batch.run(i, [np.full((n, c), np.nan, np.float32), x, n, c], grid, block)[0]
            np.testing.assert_allclose(got, e / e.sum(1, keepdims=True), rtol=1e-4, atol=1e-9)
        else:
            got = batch.run(i, [np.full(n, np.nan, np.float32), x, tgt, n, c], grid, block)[0]
            want = np.log(e.sum(1)) + x.max(1) - x[np.arange(n), tgt]
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------- element-wise

EW = {
    "int_if": """__global__ void ew(float* y, const float* x, const float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * 2.0f + b[i];
}""",
    "unsigned_return": """__global__ void ew(float* y, const float* x, const float* b, int n) {
  const unsigned t = threadIdx.x + blockIdx.x * blockDim.x;
  if (t >= n) return;
  const float v = x[t];
  y[t] = v * 2.0f + b[t];
}""",
    "size_t_typedef": """typedef float val_t;
__global__ void ew(val_t* y, const val_t* x, const val_t* b, int n) {
  size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k < (size_t)n) { val_t v = x[k]; v = v * 2.0f; y[k] = v + b[k]; }
}""",
    "grid_stride": """__global__ void ew(float* y, const float* x, const float* b, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = 2.0f * x[i] + b[i];
}""",
    "conditional_write": """__global__ void ew(float* y, const float* x, const float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { if (x[i] > 0.0f) y[i] = x[i] * 2.0f + b[i]; else y[i] = 2.0f * x[i] + b[i]; }
}""",
}


@needs_gxx
@pytest.mark.slow
def test_elementwise_packs_on_five_spellings(tmp_path):
    items = []
    for name, text in EW.items():
        src, rk = rk_of(text)
        assert is_elementwise(rk), (name, rk.reasons)
        for vec, per in ((1, 1), (4, 1), (4, 4), (8, 2)):
            new = elementwise.vectorize(src, rk, vec, per)
            items.append((name, vec, per, new))
    compile_all([t for *_, t in items], "ew")
    batch = Batch([(t, "ew") for *_, t in items], str(tmp_path))
    rng = np.random.default_rng(7)
    for n in (1003, 64):
        x, b = rng.standard_normal(n + 4).astype(np.float32), rng.standard_normal(n + 4).astype(np.float32)
        for off in (0, 4):  # 4 bytes: pointers off 16-byte alignment (the element path)
            want = (2.0 * x[off // 4: off // 4 + n] + b[off // 4: off // 4 + n]).astype(np.float32)
            for i, (name, vec, per, _) in enumerate(items):
                y = np.full(n + 4, np.nan, np.float32)
                got = batch.run(i, [(y, off), (x, off), (b, off), n], [2], [64])[0]
                np.testing.assert_array_equal(got[off // 4: off // 4 + n], want, err_msg=f"{name} vec {vec} per {per}")


def test_elementwise_refuses_other_shapes():
    for text in (EW["int_if"].replace("y[i] = x[i]", "y[i] = x[i + 1]"),  # a neighbour
                 EW["int_if"].replace("if (i < n) y[i]", "y[i]"),  # no bound
                 EW["int_if"].replace("y[i] = x[i] * 2.0f + b[i];", "{ float s = 0; for (int k = 0; k < 4; k++) s += x[i]; y[i] = s; }")):
        src, rk = rk_of(text)
        with pytest.raises(Refuse):
            elementwise.vectorize(src, rk, 4)


# ---------------------------------------------------------------- column reductions

COLS = {
    "int_for": """__global__ void colred(float* out, const float* d, int n, int m) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < m) { float s = 0.0f; for (int r = 0; r < n; r++) s += d[r * m + c]; out[c] = s; }
}""",
    "unsigned_while": """__global__ void colred(float* out, const float* d, int n, int m) {
  const unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= (unsigned)m) return;
  float acc = 0.f; size_t r = 0;
  while (r < (size_t)n) { acc += d[r * m + c]; r++; }
  out[c] = acc;
}""",
    "double_acc_scaled": """__global__ void colred(float* out, const float* d, int n, int m) {
  size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (c < (size_t)m) { double s = 0.0; for (int r = 0; r < n; ++r) s += d[(size_t)r * m + c]; out[c] = (float)(s / n); }
}""",
    "max": """__global__ void colred(float* out, const float* d, int n, int m) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < m) { float s = -INFINITY; for (int r = 0; r < n; r++) s = fmaxf(s, d[r * m + c]); out[c] = s; }
}""",
    "offset_pointer": """typedef float T;
__global__ void colred(T* out, const T* d, int n, int m) {
  int c = threadIdx.x + blockIdx.x * blockDim.x;
  if (c < m) { const T* p = d + c; T s = 0; for (int r = 0; r < n; r++) { s += p[r * m]; } out[c] = s; }
}""",
}


@needs_gxx
@pytest.mark.slow
def test_column_split_on_five_spellings(tmp_path):
    items, clusters = [], []
    for name, text in COLS.items():
        src, rk = rk_of(text)
        assert column_loop(rk) is not None, (name, rk.reasons)
        for vec in (1, 4):  # one column per thread, and 4 neighbouring columns through packed loads
            new = columns.column_reduce(src, rk, 1, vec)
            clusters.append(columns.column_reduce(src, rk, 4, vec))  # the cluster form (run on the GPU tests)
            items.append((name, vec, new))
    compile_all([t for *_, t in items] + clusters, "colred")
    batch = Batch([(t, "colred") for *_, t in items], str(tmp_path))
    rng = np.random.default_rng(11)
    for n, m in ((77, 45), (40, 64)):
        d = rng.standard_normal((n, m)).astype(np.float32)
        for off in (0, 4):  # 4 bytes: the packs are not aligned, the per-column path runs
            dd = np.concatenate([np.zeros(1, np.float32), d.ravel()]) if off else d
            for i, (name, vec, _) in enumerate(items):
                x = 32 if vec == 1 else 8
                got = batch.run(i, [np.full(m, np.nan, np.float32), (dd, off), n, m], [-(-m // (x * vec)), 1], [x, 16])[0]
                want = {"max": d.max(0), "double_acc_scaled": d.astype(np.float64).sum(0) / n}.get(
                    name, d.astype(np.float64).sum(0))
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4, err_msg=f"{name} vec={vec} {n}x{m} +{off}")


def test_column_split_refuses_other_shapes():
    stores_first = COLS["int_for"].replace("float s = 0.0f;", "out[c] = 0; float s = 0.0f;")
    carried = COLS["int_for"].replace("s += d[r * m + c];", "s = s * 0.5f + d[r * m + c];")
    row_major = COLS["int_for"].replace("d[r * m + c]", "d[c * n + r]")  # contiguous in r: a row shape
    for text in (stores_first, carried, row_major):
        src, rk = rk_of(text)
        with pytest.raises(Refuse):
            columns.column_reduce(src, rk, 1)


# ---------------------------------------------------------------- launches


def test_grids_cover_the_same_rows():
    assert cover("cdiv(N, 256)", 256, 8) == "cdiv(N, 8)"
    assert cover("cdiv(B * T, 128)", 128, 1) == "B * T"
    assert cover("N", 1, 1) == "N"
    assert cover(64, 256, 8) == "2048"
    assert cover("(N + 255) // 256", 256, 4) == "cdiv(((N + 255) // 256) * 256, 4)"


def test_launches_in_the_file_are_rewritten_or_explained():
    text = """__global__ void rowsum(float* out, const float* in, int n, int c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float s = 0; for (int j = 0; j < c; j++) s += in[i*c+j]; out[i] = s; }
}
void run(float* o, const float* x, int n, int c, cudaStream_t st) {
  const int bs = 128;
  rowsum<<<(n + bs - 1) / bs, bs, 0, st>>>(o, x, n, c);
  dim3 g((n + 255) / 256), b(256);
  rowsum<<<g, b>>>(o, x, n, c);
}"""
    src = parse_source(text)
    subs, notes = rewrite_launches(src, "rowsum", rows_host(8, 256))
    new = span_text(src, 0, len(src.data), subs)
    assert "rowsum<<<(unsigned)(((long long)((n + bs - 1) / bs) * (bs) + 7) / 8), 256, 0, st>>>" in new
    assert len(notes) == 1 and "dim3" in notes[0] and "line 9" in notes[0]


def test_a_block_per_row_follows_the_row_length_across_sizes(tmp_path):
    """Rows 768 wide at one size and 4096 at another: the block team's first setting takes C / 16
    threads (whole warps: 64 and 256), in the spec's launch and in the file's own launch."""
    from kernelpro.optimizer.restructure.api import Context, row_plans
    text = """__global__ void rowmean(float* __restrict__ out, const float* __restrict__ in, int n, int c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float s = 0; for (int j = 0; j < c; j++) s += in[i*c+j]; out[i] = s / c; }
}
void run(float* o, const float* x, int rows, int width) {
  rowmean<<<(rows + 255) / 256, 256>>>(o, x, rows, width);
}"""
    ctx = Context(kernel="rowmean", path=TEST_CU, launch={"grid": ["cdiv(N, 256)"], "block": [256]},
                  base_launch={"grid": ["cdiv(N, 256)"], "block": [256]},
                  size_env={"small": {"N": 64, "C": 768, "n": 64, "c": 768},
                            "large": {"N": 64, "C": 4096, "n": 64, "c": 4096}},
                  scalar_params={"n": "N", "c": "C"})
    block = next(p for p in row_plans(text, ctx) if p.name == "row-block")
    assert block.space[0] == {"block": 0, "per": 4, "vec": 4, "unroll": 1}
    cand = block.build(block.space[0])
    assert cand.launch["block"] == ["min(1024, max(64, 32 * cdiv((C), 512)))"] and cand.launch["grid"] == ["N"]
    assert "c / 16 threads per block in whole warps (64 at small, 256 at large)" in cand.description
    assert "rowmean<<<(unsigned)((long long)((rows + 255) / 256) * (256)), kp_team_threads((long long)((width)), 16)>>>" \
        in cand.source
    fixed = block.build({"block": 256, "vec": 4, "unroll": 1})  # a fixed size stays a number
    assert fixed.launch["block"] == [256]
    compile_all([cand.source], "rowmean")
    kernel_only = cand.source[:cand.source.index("void run(")]  # the emulator runs kernels, not <<<>>>
    batch = Batch([(kernel_only, "rowmean")], str(tmp_path))
    rng = np.random.default_rng(5)
    for c, threads in ((768, 64), (4096, 256), (200, 64)):
        n = 3
        x = rng.standard_normal((n, c)).astype(np.float32)
        got = batch.run(0, [np.full(n, np.nan, np.float32), x, n, c], [n], [threads])[0]
        np.testing.assert_allclose(got, x.astype(np.float64).mean(1), rtol=1e-4, atol=1e-5, err_msg=str(c))


def test_online_pair_of_mixed_types_compiles():
    """A float max and a double sum (a common naive softmax) fuse and combine in their own types."""
    text = """__global__ void sm(float* __restrict__ out, const float* __restrict__ in, int n, int c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float mx = -INFINITY; for (int j = 0; j < c; j++) if (in[i*c+j] > mx) mx = in[i*c+j];
    double sum = 0.0; for (int j = 0; j < c; j++) { out[i*c+j] = expf(in[i*c+j] - mx); sum += out[i*c+j]; }
    for (int j = 0; j < c; j++) out[i*c+j] /= (float)sum;
  }
}"""
    fused, done = simplify(text, TEST_CU, "sm")
    assert "online max and sum" in done
    src, rk = rk_of(fused)
    for team in (rows.Team("warp", 4), rows.Team("block", 4)):
        compiles(rows.team_rows(src, rk, team), "sm")


def test_a_reassigned_pointer_becomes_a_new_one_and_copies_are_used_for_what_they_copy():
    """`x = out + row * C;` after x's declaration: a new pointer from there (not inside a loop, where
    the next iteration would read the old name); `float off = (m);` of a variable of the same type
    never written again: off's mentions become m; a copy across types or of a variable written
    later stays."""
    from kernelpro.optimizer.restructure.passes import propagate_copies, rename_reassigned_pointers
    text = """__global__ void k(float* out, const float* inp, int N, int C) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  const float* x = inp + row * C;
  float s = x[0];
  x = out + row * C;
  s += x[1];
  out[row] = s;
}"""
    new = rename_reassigned_pointers(text, "k.cu", "k")
    assert "const float * x_1 = out + row * C;" in new and "s += x_1[1];" in new and "float s = x[0];" in new
    assert rename_reassigned_pointers(new, "k.cu", "k") is None
    looped = text.replace("  x = out + row * C;\n", "  for (int j = 0; j < C; j++) { s += x[j]; x = out + j; }\n")
    assert rename_reassigned_pointers(looped, "k.cu", "k") is None
    stepped = text.replace("x = out + row * C;", "x = x + C;")
    assert rename_reassigned_pointers(stepped, "k.cu", "k") is None

    copy = """__global__ void k(float* out, int C) {
  float m = 0.0f;
  for (int j = 0; j < C; j++) m = fmaxf(m, out[j]);
  float off = (m);
  out[0] = off + 1.0f;
}"""
    new = propagate_copies(copy, "k.cu", "k")
    assert "off" not in new and "out[0] = m + 1.0f;" in new
    assert propagate_copies(copy.replace("float off", "double off"), "k.cu", "k") is None
    assert propagate_copies(copy.replace("out[0] = off + 1.0f;", "m = 2.0f; out[0] = off;"), "k.cu", "k") is None
    assert propagate_copies(copy.replace("out[0] = off + 1.0f;", "off += 1.0f; out[0] = off;"), "k.cu", "k") is None


def test_exponentials_read_back_through_another_pointer_are_recomputed_and_fused():
    """llm.c's second softmax, lifted to one thread per row: the exponentials stored in out and read
    back through `x = out + row * C` are recomputed (the same element by the followed index), the
    store then overwritten is dropped with its loop (a loop that only reads the input stands between),
    and the max and the sum fuse into one online pass."""
    text = """__global__ void k(float* __restrict__ out, const float* __restrict__ inp, int N, int C) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < N) {
    const float* x = inp + row * C;
    float m = -INFINITY;
    for (int i = 0; i < C; i++) m = fmaxf(m, x[i]);
    float off = (m);
    for (int i = 0; i < C; i++) out[row * C + i] = expf(x[i] - off);
    const float* y = out + row * C;
    float s = 0.0f;
    for (int i = 0; i < C; i++) s += y[i];
    for (int i = 0; i < C; i++) out[row * C + i] = y[i] / s;
  }
}"""
    new, done = simplify(text, "k.cu", "k")
    assert done.count("forward a stored value") == 2 and "drop a dead store" in done and "online max and sum" in done, done
    src = parse_source(new)
    k = src.kernel("k")
    assert len(k.loops) == 2 and "y[i]" not in new
    compiles(new, "k")


@pytest.mark.parametrize("head", [
    "for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x)",
    "int stride = blockDim.x * gridDim.x;\n  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += stride)",
    "int index = blockIdx.x * blockDim.x + threadIdx.x;\n  const size_t stride = (size_t)blockDim.x * gridDim.x;\n"
    "  for (size_t i = index; i < N; i += stride)",
])
def test_grid_stride_loops_are_rows_whatever_names_their_start_and_step(head):
    text = f"__global__ void k(float* out, const float* a, int N) {{\n  {head} {{ out[i] = 2.0f * a[i]; }}\n}}"
    src, rk = rk_of(text)
    assert rk is not None and rk.form == "loop" and rk.row == "i" and rk.ok, rk and rk.reasons
    used = text.replace("out[i] = 2.0f * a[i];", "out[i] = 2.0f * a[i] + index;")
    if "int index" in head:  # the start's name used in the body too: not only the loop's start
        src, rk = rk_of(used)
        assert rk is None or rk.form != "loop" or not rk.ok


def test_void_helpers_inline_nested_calls_come_out_and_a_loop_left_in_a_call_blocks_the_teams():
    """A void helper that loops over the row (writing it) is inlined where it is a statement; a
    looping helper called inside an expression is first taken out into its own declaration, but not
    from under `?:` (called only sometimes); a looping call left as written refuses the row plans
    (every lane of a team would run all of it)."""
    from kernelpro.optimizer.restructure.passes import inline_loop_helpers
    text = """__device__ float sum_sq(const float* v, int n) {
  float acc = 0.0f;
  for (int i = 0; i < n; i++) acc += v[i] * v[i];
  return acc;
}
__device__ void scale(float* dst, const float* src, float s, int n) {
  for (int i = 0; i < n; i++) dst[i] = src[i] * s;
}
__global__ void k(float* out, float* rstd, const float* inp, int N, int C) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= N) return;
  float r = rsqrtf(sum_sq(inp + row * C, C) / C + 1e-6f);
  scale(out + row * C, inp + row * C, r, C);
  rstd[row] = r;
}"""
    new = inline_loop_helpers(text, TEST_CU, "k")
    body = new[new.index("__global__"):]
    assert "sum_sq(inp" not in body and "scale(out" not in body, body
    assert "float r = rsqrtf(kp_h1 / C + 1e-6f);" in body and "float* kp_scale2_dst = (out + row * C);" in body
    compiles(new, "k")
    src, rk = rk_of(new, "k")
    assert rk.ok and len(rk.spread) == 2, rk.reasons
    guarded = text.replace("rsqrtf(sum_sq(inp + row * C, C) / C + 1e-6f)", "C > 0 ? rsqrtf(sum_sq(inp + row * C, C)) : 0.0f")
    new = inline_loop_helpers(guarded, TEST_CU, "k")
    assert "? rsqrtf(sum_sq(inp + row * C, C))" in new
    src, rk = rk_of(new, "k")
    assert not rk.ok and any("calls sum_sq, a function that loops" in r for r in rk.reasons), rk.reasons
