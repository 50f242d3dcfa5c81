"""The built-in transforms and BuiltinProposer: each rewrite on small kernels, compile checks,
priors, de-duplication, determinism; a GPU test compares original and transformed outputs."""
from __future__ import annotations

import glob
import math
import os
from types import SimpleNamespace

import pytest
from compile_batch import compile_each

from kernelpro.optimizer.builtin import BuiltinProposer, advice_prior
from kernelpro.optimizer.model import Candidate, Evaluation
from kernelpro.optimizer.transforms import (
    TRANSFORMS, Transform, TransformInput, apply_edits, read_only_pointers, rescale_grid)
from kernelpro.profilers.advice import Advice, Severity
from kernelpro.profilers.compile import CompileOptions, compile_cuda
from kernelpro.profilers.source import parse_source

HERE = os.path.dirname(__file__)
EXAMPLES = sorted(glob.glob(os.path.join(HERE, "..", "examples", "*.cu")))
LAUNCH = {"block": [256], "grid": ["cdiv(n, 256)"]}
TEST_CU = os.path.join(HERE, "kp_transform_test.cu")  # never written: compile_cuda gets the text

ADD = """
__global__ void add(const float* a, float* b, float* out, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n) return;
  float t = sqrt(a[i]) + b[i];
  out[i] = t * 0.5 + i;
}
"""

SAXPY = """
__global__ void saxpy(float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (x[i] > 0.0f) y[i] = a * x[i] + y[i];
  }
}
"""

LOOPS = """
#define K 8
__global__ void dots(const float* a, float* out, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.f;
  for (int k = 0; k < K; ++k) {
    for (int j = 0; j < m; ++j) {
      s += a[(i * K + k) * m + j];
    }
  }
  out[i] = s;
}
"""

TILE = """
#define T 32
__global__ void tr(float* out, const float* in, int n) {
  __shared__ float tile[T][T];
  int x = blockIdx.x * T + threadIdx.x, y = blockIdx.y * T + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  out[x * n + y] = tile[threadIdx.x][threadIdx.y];
}
"""

NAIVE_T = """
__global__ void transpose(float* out, const float* in, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    out[x * height + y] = in[y * width + x];
  }
}
"""


def inp(source, kernel, advice=(), launch=None, flags=(), resources=None):
    return TransformInput(source, kernel, list(advice), dict(launch or LAUNCH), tuple(flags), ["n"],
                          resources or {})


def run(name, i):
    t = next(t for t in TRANSFORMS if t.name == name)
    return t.apply(i)


def compiles(source, flags=(), kernel=None):
    art = compile_cuda(TEST_CU, CompileOptions(extra_flags=tuple(flags)),
                       text=source)
    assert art.ok, "\n".join(d.message for d in art.errors) + "\n" + source
    if kernel:
        assert art.builds(kernel)
    return art


def adv(rule, kernel, severity=Severity.WARNING, gain=None, fix=None, remedy="do it", message="found", data=None):
    return Advice(rule=rule, severity=severity, kernel=kernel, file="k.cu", line=1, message=message,
                  remedy=remedy, gain=gain, fix=fix, data=data or {})


# ---------------------------------------------------------------- apply_edits and grids


def test_apply_edits_bottom_up_and_insertions():
    text = "abc\ndef\nghi"
    edits = [{"line": 1, "column": 2, "end_line": 1, "end_column": 3, "new_text": "XX"},
             {"line": 2, "column": 1, "end_line": 3, "end_column": 2, "new_text": ""},
             {"line": 3, "column": 4, "end_line": 3, "end_column": 4, "new_text": "!"}]
    assert apply_edits(text, edits) == "aXXc\nhi!"
    two = [{"line": 1, "column": 1, "end_line": 1, "end_column": 1, "new_text": "1"},
           {"line": 1, "column": 1, "end_line": 1, "end_column": 1, "new_text": "2"}]
    assert apply_edits("x", two) == "12x"


@pytest.mark.parametrize("edit, msg", [
    ({"line": 5, "column": 1, "end_line": 5, "end_column": 1, "new_text": ""}, "line 5 is outside"),
    ({"line": 1, "column": 9, "end_line": 1, "end_column": 9, "new_text": ""}, "column 9 is outside"),
    ({"line": 1, "column": 3, "end_line": 1, "end_column": 2, "new_text": ""}, "before start"),
    ({"line": 1, "column": 1, "end_line": 1}, "missing key"),
])
def test_apply_edits_rejects_bad_ranges(edit, msg):
    with pytest.raises(ValueError, match=msg):
        apply_edits("abc\ndef", [edit])


def test_apply_edits_rejects_overlap():
    e = [{"line": 1, "column": 1, "end_line": 1, "end_column": 3, "new_text": "x"},
         {"line": 1, "column": 2, "end_line": 1, "end_column": 4, "new_text": "y"}]
    with pytest.raises(ValueError, match="overlap"):
        apply_edits("abcd", e)


def test_rescale_grid_forms():
    assert rescale_grid("cdiv(n, 256)", 256, 512) == "cdiv(n, 512)"
    assert rescale_grid("min(cdiv(n * m, 256), 1056)", 256, 128) == "min(cdiv(n * m, 128), 1056)"
    assert rescale_grid("(n + 256 - 1) // 256", 256, 1024) == "cdiv(n, 1024)"
    assert rescale_grid("cdiv(n, 128)", 256, 512) is None  # another block size
    assert rescale_grid("n // 256", 256, 512) is None
    assert rescale_grid(1024, 256, 512) is None


# ---------------------------------------------------------------- the transforms


def test_restrict_marks_only_read_only_pointers_const():
    src = parse_source(ADD)
    assert read_only_pointers(src, src.kernels[0]) == ["a", "b"]
    (c,) = run("restrict", inp(ADD, "add", [adv("missing-restrict", "add")]))
    assert "const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out" in c.source
    assert c.answers == ("missing-restrict",) and "missing-restrict" in c.description
    compiles(c.source, kernel="add")
    (c2,) = run("restrict", inp(ADD, "add"))  # without the advice: speculative
    assert c2.answers == () and c2.source == c.source


def test_restrict_leaves_written_pointers_non_const():
    (c,) = run("restrict", inp(SAXPY, "saxpy"))
    assert "const float* __restrict__ x, float* __restrict__ y" in c.source
    assert run("restrict", inp(c.source, "saxpy")) == []  # nothing left to do


def test_float_literals_and_math():
    (c,) = run("float-literals", inp(ADD, "add", [adv("fp64-in-float-kernel", "add")]))
    assert "sqrtf(a[i])" in c.source and "t * 0.5f + i" in c.source
    assert c.answers == ("fp64-in-float-kernel",)
    art = compiles(c.source, kernel="add")
    ops = {i.opcode.split(".")[0] for k in art.kernels for i in k.sass}
    assert not ops & {"DADD", "DMUL", "DFMA", "F2F"}
    dbl = ADD.replace("float t", "double t")
    assert run("float-literals", inp(dbl, "add")) == []  # a double kernel is left alone


def test_unroll_constant_and_runtime_loops():
    cands = run("unroll", inp(LOOPS, "dots", [adv("rolled-constant-loop", "dots")]))
    full = next(c for c in cands if "constant-trip" in c.description)
    assert "#pragma unroll\n  for (int k = 0; k < K; ++k)" in full.source
    assert "#pragma unroll 4" not in full.source
    four = next(c for c in cands if "unroll 4" in c.description)
    assert "    #pragma unroll 4\n    for (int j = 0; j < m; ++j)" in four.source
    assert {c.description.split(" on")[0] for c in cands} == {
        "#pragma unroll", "#pragma unroll 4", "#pragma unroll 2", "#pragma unroll 8"}
    loops = parse_source(four.source).kernels[0].loops
    assert [l.pragma_unroll for l in loops] == [None, "4"]
    compiles(full.source, kernel="dots")
    compiles(four.source, kernel="dots")


def test_launch_bounds_from_block_size():
    regs = adv("low-occupancy", "add", Severity.INFO, message="occupancy limited by registers")
    cands = run("launch-bounds", inp(ADD, "add", [regs]))
    texts = [c.description.split(" (")[0] for c in cands]
    assert texts == ["add __launch_bounds__(256)", "add __launch_bounds__(256, 8)", "add __launch_bounds__(256, 4)"]
    assert cands[0].answers == () and cands[1].answers == ("low-occupancy",)
    assert parse_source(cands[1].source).kernels[0].launch_bounds == (256, 8)
    compiles(cands[1].source, kernel="add")
    assert run("launch-bounds", inp(cands[0].source, "add")) == []  # already bounded
    smem = adv("low-occupancy", "add", Severity.INFO, message="limited by shared memory")
    assert all(c.answers == () for c in run("launch-bounds", inp(ADD, "add", [smem])))


def test_launch_bounds_caps_that_change_nothing_or_force_spills_are_not_proposed():
    # 256 threads: (256, 8) caps at 32 registers, (256, 4) at 64
    texts = lambda regs: [c.description.split(" (")[0] for c in run("launch-bounds", inp(ADD, "add",
                                                                                          resources={"registers": regs}))]
    assert texts(24) == ["add __launch_bounds__(256)"]  # both caps at or above 24: nothing to gain
    assert texts(40) == ["add __launch_bounds__(256)", "add __launch_bounds__(256, 8)"]  # 32 of 40: may pay
    assert texts(72) == ["add __launch_bounds__(256)", "add __launch_bounds__(256, 4)"]  # 32 of 72 would spill
    assert texts(128) == ["add __launch_bounds__(256)"]  # a tiled product's registers: either cap spills
    # registers go to whole warps (ptxas with -v: (200, 5) caps at 56, (48, 32) at 32), and a bound past 64
    # warps per SM is ignored
    from kernelpro.optimizer.transforms import _cap_may_help
    assert _cap_may_help(64, 200, 5) and not _cap_may_help(44, 48, 32) and not _cap_may_help(64, 100, 20)


def test_pad_shared_tile():
    (c,) = run("pad-shared", inp(TILE, "tr", [adv("shared-bank-conflict", "tr")]))
    assert "__shared__ float tile[T][T + 1];" in c.source and c.answers == ("shared-bank-conflict",)
    compiles(c.source, kernel="tr")
    flat = TILE.replace("out[x * n + y] = tile[threadIdx.x][threadIdx.y];",
                        "out[x * n + y] = (&tile[0][0])[threadIdx.x * T + threadIdx.y];")
    assert run("pad-shared", inp(flat, "tr")) == []  # flattened use: padding would change it
    odd = TILE.replace("tile[T][T]", "tile[T][17]")
    assert run("pad-shared", inp(odd, "tr")) == []


def test_flag_transforms():
    low = adv("low-occupancy", "add", Severity.INFO, remedy="cap registers at 64 per thread with ...",
              data={"register_cap": 64})
    # the cap travels as a number: a remedy's wording is never parsed
    assert run("fast-math", inp(ADD, "add", [adv("low-occupancy", "add", remedy="cap registers at 48 per thread")],
                                resources={"registers": 40})) == [run("fast-math", inp(ADD, "add"))[0]]
    cands = run("fast-math", inp(ADD, "add", [low, adv("slow-math-in-loop", "add")],
                                 resources={"registers": 96}))
    assert [c.flags for c in cands] == [("--use_fast_math",), ("-maxrregcount=64",)]
    assert cands[0].answers == ("slow-math-in-loop",) and cands[1].answers == ("low-occupancy",)
    again = run("fast-math", inp(ADD, "add", flags=("--use_fast_math", "-maxrregcount=64")))
    assert again == []


def test_advice_fixes_are_applied():
    src = parse_source(ADD)
    lit = next(n for n in __import__("kernelpro.profilers.source", fromlist=["walk"]).walk(src.kernels[0].body)
               if n.type == "number_literal" and src.node_text(n) == "0.5")
    line, col, eline, ecol = src.pos(lit)
    fix = {"title": "Make 0.5 a float literal (0.5f)",
           "edits": [{"line": line, "column": col, "end_line": eline, "end_column": ecol, "new_text": "0.5f"}]}
    bad = {"title": "broken", "edits": [{"line": 99, "column": 1, "end_line": 99, "end_column": 1, "new_text": "x"}]}
    cands = run("fix", inp(ADD, "add", [adv("fp64-in-float-kernel", "add", fix=fix),
                                        adv("fp64-in-float-kernel", "add", fix=bad)]))
    assert len(cands) == 1 and "t * 0.5f + i" in cands[0].source
    assert cands[0].description == "Make 0.5 a float literal (0.5f) (fp64-in-float-kernel)"



SOFTMAX_WRITE = """
__global__ void norm(float* y, const float* x, float m, float s, int n) {
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    y[j] = expf(x[j] - m) / s;
  }
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    y[j] += expf(y[j]);
  }
}
"""


def test_one_rules_fixes_apply_together_first_even_when_they_nest(tmp_path):
    """Eight `Use __expf` findings are one expert edit, not eight children; the __fdividef fix
    around an expf() call applies together with the __expf fix inside it."""
    def over(a, b):
        return {"title": f"cols {a}-{b}", "edits": [{"line": 3, "column": a, "end_line": 3, "end_column": b,
                                                    "new_text": "x"}]}
    alone = run("fix", inp(ADD, "add", [adv("fp64-in-float-kernel", "add", fix=over(1, 9)),
                                        adv("fp64-in-float-kernel", "add", fix=over(5, 12))]))
    assert [c.description for c in alone] == ["cols 1-9 (fp64-in-float-kernel)", "cols 5-12 (fp64-in-float-kernel)"]
    from kernelpro.profilers.profile import profile_file
    f = tmp_path / "norm.cu"
    f.write_text(SOFTMAX_WRITE)
    rep = profile_file(f, CompileOptions())
    slow = [a for a in rep.advice if a.rule == "slow-math-in-loop"]
    assert len(slow) == 3 and {a.fix["title"] for a in slow} == {"Use __expf", "Use __fdividef"}
    cands = run("fix", inp(SOFTMAX_WRITE, "norm", slow))
    first = cands[0]
    assert first.description.startswith("Use __expf and __fdividef on lines 4, 7: all 3 fixes")
    assert "y[j] = __fdividef(__expf(x[j] - m), s);" in first.source and "y[j] += __expf(y[j]);" in first.source
    assert len(cands) == 1  # not each alone as well: they combine
    parts = run("fix-one", inp(SOFTMAX_WRITE, "norm", slow))  # the fallback: each alone, answering nothing
    assert len(parts) == 3 and all(c.answers == () and c.description.endswith(" alone") for c in parts)
    f.write_text(first.source)
    again = profile_file(f, CompileOptions())
    assert again.ok and not [a for a in again.advice if a.rule == "slow-math-in-loop"]


NESTED_DIV = """
__global__ void ratio(float* y, const float* x, const float* s, const float* t, int n) {
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    y[j] += x[j] / s[j] / t[j];
  }
}
"""


def test_nested_divisions_combine_into_nested_fast_divisions(tmp_path):
    """Two `Use __fdividef` fixes insert `__fdividef(` at the same place: both stay (a fix is
    deduplicated whole, never edit by edit), the outer one first."""
    from kernelpro.profilers.profile import profile_file
    f = tmp_path / "ratio.cu"
    f.write_text(NESTED_DIV)
    slow = [a for a in profile_file(f, CompileOptions()).advice if a.rule == "slow-math-in-loop"]
    assert len(slow) == 2
    (first,) = run("fix", inp(NESTED_DIV, "ratio", slow + slow[:1]))  # a fix offered twice counts once
    assert "y[j] += __fdividef(__fdividef(x[j], s[j]), t[j]);" in first.source
    assert first.description.startswith("Use __fdividef on line 4: all 2 fixes")
    assert compiles(first.source, kernel="ratio")


def test_an_insertion_lands_before_a_replacement_at_the_same_place():
    text = "y = expf(x) / s;"
    edits = [{"line": 1, "column": 5, "end_line": 1, "end_column": 5, "new_text": "__fdividef("},
             {"line": 1, "column": 5, "end_line": 1, "end_column": 9, "new_text": "__expf"}]
    want = "y = __fdividef(__expf(x) / s;"
    assert apply_edits(text, edits) == want and apply_edits(text, edits[::-1]) == want


# ---------------------------------------------------------------- the proposer


def node_for(source, advice=(), launch=None, flags=(), resources=None):
    return SimpleNamespace(candidate=Candidate(source, launch, flags),
                           evaluation=Evaluation(ok=True, advice=list(advice), resources=resources or {}))


class Ctx:
    def __init__(self, known=()):
        self.seen = {c.key() for c in known}

    def is_known(self, c):
        return c.key() in self.seen


def test_proposer_orders_by_advice_and_dedups(tmp_path):
    p = BuiltinProposer("add", LAUNCH, ["n"], path=TEST_CU)
    advice = [adv("missing-restrict", "add", Severity.WARNING, gain=1.2),
              adv("narrow-global-access", "add", Severity.INFO, gain=3.0)]
    node = node_for(ADD, advice)
    props = p.propose(node, Ctx(), 3)
    assert [x.candidate.origin for x in props] == ["builtin:elementwise", "builtin:restrict", "builtin:float-literals"]
    assert props[0].candidate.kind == "structural" and props[0].candidate.answers == ("narrow-global-access",)
    assert props[0].prior == pytest.approx(advice_prior(advice[1])) and props[0].prior > props[1].prior
    assert props[2].prior < props[1].prior  # speculative
    more = p.propose(node, Ctx(), 3)  # never the same proposal twice for a node
    assert not {x.candidate.key() for x in more} & {x.candidate.key() for x in props}
    known = p.propose(node_for(ADD, advice), Ctx(known=[more[0].candidate]), 50)
    assert more[0].candidate.key() not in {x.candidate.key() for x in known}


def test_proposer_inherits_launch_and_flags(tmp_path):
    p = BuiltinProposer("add", LAUNCH, ["n"], path=TEST_CU)
    node = node_for(ADD, launch={"block": [512], "grid": ["cdiv(n, 512)"]}, flags=("--use_fast_math",))
    props = p.propose(node, Ctx(), 50)
    assert props
    for x in props:
        assert "--use_fast_math" in x.candidate.flags
        assert x.candidate.launch is not None and x.candidate.launch["block"] in ([512], [128], [256], [1024])
    # block sizes are tuned inside a structural node, never proposed as children
    assert not [x for x in props if x.candidate.kind == "launch"]
    vec = next(x for x in props if x.candidate.origin == "builtin:elementwise")
    assert vec.candidate.launch == {"block": [256], "grid": ["cdiv(n, 4096)"]}  # 4 x float4 per thread


def test_proposer_drops_candidates_that_do_not_compile(tmp_path):
    broken = Transform("broken", (), lambda i: [Candidate(i.source.replace("float t", "flaot t"),
                                                          description="typo", origin="builtin:broken")], 0.9)
    p = BuiltinProposer("add", LAUNCH, ["n"], path=TEST_CU,
                        transforms=[broken, *TRANSFORMS[1:3]])
    props = p.propose(node_for(ADD), Ctx(), 5)
    assert props and all(x.candidate.description != "typo" for x in props)
    assert p.rejected and p.rejected[0][0] == "typo" and p.rejected[0][1].startswith("compile:")


def test_proposer_is_deterministic(tmp_path):
    def keys(seed):
        p = BuiltinProposer("add", LAUNCH, ["n"], seed=seed, path=TEST_CU)
        return [(x.candidate.key(), x.prior) for x in p.propose(node_for(ADD), Ctx(), 50)]
    a = keys(0)
    assert a == keys(0) and len(a) > 5
    assert sorted(a) == sorted(keys(7))  # another seed: the same set, perhaps in another order


@pytest.mark.slow
@pytest.mark.parametrize("path", [p for p in EXAMPLES if not p.endswith("_fixed.cu")] or [None],
                         ids=lambda p: os.path.basename(p) if p else "none")
def test_every_candidate_on_the_examples_compiles(path):
    if path is None:
        pytest.skip("no examples/*.cu yet")
    text = open(path).read()
    src = parse_source(text, path)
    seen, todo = set(), []
    for k in src.kernels:
        site = next((s for s in src.launch_sites if s.kernel == k.name), None)
        b = site.block_threads if site and site.block_threads else 256
        launch = {"block": [b], "grid": [f"cdiv(n, {b})"]} if b <= 1024 else {"block": [256], "grid": ["cdiv(n, 256)"]}
        for t in TRANSFORMS:
            for c in t.apply(inp(text, k.name, launch=launch)):
                if (c.source, c.flags) not in seen and c.source != text:
                    seen.add((c.source, c.flags))
                    todo.append((k.name, c))
    problems = compile_each(path, [(name, c.source, c.flags) for name, c in todo])  # few nvcc calls
    for (name, c), problem in zip(todo, problems):
        assert problem is None, f"{c.description}: {problem}"


# ---------------------------------------------------------------- semantics on the host
# (the structural rewrites are run in the CPU emulator: tests/test_restructure.py and
# tests/test_suite_kernels.py)


# ---------------------------------------------------------------- on the GPU


def _gpu_runner():
    try:
        import cupy as cp

        def launch(source, name, args, grid, block, flags=()):
            mod = cp.RawModule(code=source, options=("-std=c++17", *flags), name_expressions=[name])
            mod.get_function(name)(tuple(grid), tuple(block), args)
            cp.cuda.Device().synchronize()

        return "cupy", cp, launch
    except ImportError:
        pass
    try:
        import numpy as np
        import pycuda.autoinit  # noqa: F401
        import pycuda.gpuarray as ga
        from pycuda.compiler import SourceModule

        def launch(source, name, args, grid, block, flags=()):
            f = SourceModule(source, options=list(flags)).get_function(name)
            f(*args, grid=tuple(grid) + (1,) * (3 - len(grid)), block=tuple(block) + (1,) * (3 - len(block)))
            pycuda.autoinit.context.synchronize()

        return "pycuda", SimpleNamespace(asarray=ga.to_gpu, asnumpy=lambda a: a.get(), np=np), launch
    except ImportError:
        return None


def _eval_grid(launch, n):
    env = {"cdiv": lambda a, b: -(-a // b), "min": min, "max": max, "n": n}
    return [int(eval(str(g), {"__builtins__": {}}, env)) for g in launch["grid"]]


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1000003, 4096])
@pytest.mark.parametrize("source, kernel", [(ADD, "add"), (SAXPY, "saxpy")], ids=["add", "saxpy"])
@pytest.mark.parametrize("offset", [0, 1])  # 1: pointers off 16-byte alignment (the scalar path)
def test_transformed_kernels_compute_the_same(source, kernel, n, offset):
    import numpy as np
    r = _gpu_runner()
    if r is None:
        pytest.skip("neither cupy nor pycuda imports")
    lib, xp, launch = r
    rng = np.random.default_rng(n)
    host = [rng.random(n + offset, dtype=np.float32) + 0.1 for _ in range(3)]
    scalars = (np.float32(1.5), np.int32(n)) if kernel == "saxpy" else (np.int32(n),)
    nptr = 2 if kernel == "saxpy" else 3

    def outputs(src, lnch, flags=()):
        bufs = [xp.asarray(h) for h in host[:nptr]]
        if lib == "cupy":
            views = [b[offset:] for b in bufs]
        else:
            views = [np.uintp(int(b.gpudata) + 4 * offset) for b in bufs]
        launch(src, kernel, (*views, *scalars), _eval_grid(lnch, n), lnch["block"], flags)
        return [xp.asnumpy(b) for b in bufs]

    want = outputs(source, LAUNCH)
    prop = BuiltinProposer(kernel, LAUNCH, ["n"], path=TEST_CU)
    prop.size_env = {"large": {"n": n}}
    cands = [c for t in TRANSFORMS for c in t.apply(inp(source, kernel))]
    plans = [c for c, _ in prop.structural_candidates(inp(source, kernel))]
    assert {c.origin for c in plans} == {"builtin:elementwise"}
    for c in list(plans):  # every knob setting of the plan
        v = prop.tuner.next_variant(c, prop.compile_error, prop.registers_of)
        while v is not None:
            plans.append(v)
            v = prop.tuner.next_variant(c, prop.compile_error, prop.registers_of)
    cands += plans
    for c in cands:  # fast-math changes precision within this tolerance for these kernels
        got = outputs(c.source, {**LAUNCH, **(c.launch or {})}, c.flags)
        for w, g in zip(want, got):
            np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6, err_msg=c.description)
