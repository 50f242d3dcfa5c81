"""A block per output with a shared-memory tree, lifted to one thread per output and then split
over rows (optimizer/restructure/deteam.py + the column plan): the spellings people write, run
in the CPU emulator against the bias gradient's reference, and the shapes it must refuse."""
from __future__ import annotations

import os
import shutil

import re

import pytest
from compile_batch import candidates_compile
from emu_run import Batch
from suite_emu import SMALL, check, load_spec, refusals, run

from kernelpro.optimizer import spec_edit
from kernelpro.optimizer.builtin import BuiltinProposer
from kernelpro.optimizer.transforms import TransformInput

HEAD = "__global__ void bias_backward(float* dbias, const float* dout, int N, int OC) {\n"

SPELLINGS = {
    # a double accumulator stored through a C cast; the block size in a variable; the barrier at
    # the top of each tree step; `stride >= 1; stride /= 2`
    "double_c_cast": HEAD + """  extern __shared__ float shared[];
  int o = blockIdx.x;
  int tid = threadIdx.x;
  int block_size = blockDim.x;
  const float* x = dout + o;
  double sum = 0.0;
  for (int i = tid; i < N; i += block_size) {
    sum += x[i * OC];
  }
  shared[tid] = (float) sum;
  __syncthreads();
  for (int stride = block_size / 2; stride >= 1; stride /= 2) {
    __syncthreads();
    if (tid < stride) {
      shared[tid] += shared[tid + stride];
    }
  }
  if (tid == 0) {
    dbias[o] = shared[0];
  }
}
""",
    "static_cast": HEAD + """  extern __shared__ float part[];
  const unsigned t = threadIdx.x;
  const int col = blockIdx.x;
  double acc = 0;
  for (int r = t; r < N; r += blockDim.x)
    acc += dout[(size_t)r * OC + col];
  part[t] = static_cast<float>(acc);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) part[t] += part[t + s];
    __syncthreads();
  }
  if (t == 0) dbias[col] = part[0];
}
""",
    "plain_float": HEAD + """  extern __shared__ float sh[];
  int c = blockIdx.x;
  float a = 0.0f;
  for (int r = threadIdx.x; r < N; r += blockDim.x) {
    a += dout[r * OC + c];
  }
  sh[threadIdx.x] = a;
  __syncthreads();
  for (int s = blockDim.x >> 1; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) dbias[c] = sh[0];
}
""",
}


def _proposer(text: str):
    spec = load_spec("bias_grad", "naive_block")
    base = spec_edit.base_launch(spec)
    p = BuiltinProposer(spec.kernel, base, [], path="/tmp/kp_deteam_test.cu", spec=spec)
    inp = TransformInput(source=text, kernel=spec.kernel, launch=dict(base), base_launch=None)
    return spec, base, p, inp


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ for the emulator")
def test_each_spelling_is_lifted_split_and_computes_the_reference(tmp_path):
    runs = []
    for name, text in SPELLINGS.items():
        spec, base, p, inp = _proposer(text)
        cands = [c for c, _ in p.structural_candidates(inp) if c.origin == "builtin:column"]
        assert cands, f"{name}: not lifted: {p.plans_refused}"
        c = cands[0]
        assert "lifted to one thread per column" in c.description and p.compile_error(c) is None, name
        knobs = dict(c.knobs)
        if knobs.get("cluster", 1) > 1:  # the emulator runs one block at a time
            c = p.tuner.states[c.key()].plan.build({**knobs, "cluster": 1})
        runs += [(f"{name} as written", text, base), (f"{name} split", c.source, {**base, **c.launch})]
    spec = load_spec("bias_grad", "naive_block")
    batch = Batch([(src, spec.kernel) for _, src, _ in runs], str(tmp_path))
    env = SMALL["bias_grad"]
    for i, (what, src, launch) in enumerate(runs):
        got, views = run("bias_grad", spec, src, launch, env, str(tmp_path), batch=batch, index=i)
        check("bias_grad", spec, got, views, env, what)


def _refusal(text: str) -> str:
    _, _, p, inp = _proposer(text)
    return refusals(p, inp, "builtin:column")


def test_what_it_must_not_lift_is_said():
    base = SPELLINGS["plain_float"]
    # each thread starts from a value that a sum over threads would count once per thread
    seeded = base.replace("float a = 0.0f;", "float a = 1.0f;")
    assert "starts `a` at '1.0f'" in _refusal(seeded)
    # the tree reads another element than shared[tid + s]
    odd = base.replace("sh[threadIdx.x] += sh[threadIdx.x + s];", "sh[threadIdx.x] += sh[2 * threadIdx.x];")
    assert "the tree's step is not a sum" in _refusal(odd)
    # the stored partial is an expression, not a variable
    expr = base.replace("sh[threadIdx.x] = a;", "sh[threadIdx.x] = a * 2.0f;")
    assert "not a variable" in _refusal(expr)
    # an integer cast rounds each thread's partial: lifted, it would round the total once
    as_int = base.replace("sh[threadIdx.x] = a;", "sh[threadIdx.x] = (int) a;")
    assert "a cast of one to a floating type" in _refusal(as_int)
    # not a block per output at all: nothing to say about this shape
    assert "shared-memory tree" not in _refusal(HEAD + "  int c = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                                "  if (c < OC) dbias[c] = dout[c];\n}\n")


def test_the_suites_block_per_column_kernel_still_lifts():
    path = os.path.join(os.path.dirname(__file__), "..", "benchmarks", "suite", "bias_grad", "naive_block.cu")
    _, _, p, inp = _proposer(open(path).read())
    assert [c for c, _ in p.structural_candidates(inp) if c.origin == "builtin:column"]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ for the emulator")
def test_every_setting_of_the_column_split_computes_the_reference(tmp_path):
    """Including 8 rows' packs loaded together (with __launch_bounds__ so that nvcc keeps them in
    flight) and loads that evict first, on the suite's thread-per-column and block-per-column kernels."""
    suite = os.path.join(os.path.dirname(__file__), "..", "benchmarks", "suite", "bias_grad")
    spec = load_spec("bias_grad", "naive_block")
    runs, settings = [], set()
    for stem in ("naive", "naive_block"):
        text = open(os.path.join(suite, f"{stem}.cu")).read()
        _, base, p, inp = _proposer(text)
        base = spec_edit.base_launch(load_spec("bias_grad", stem))
        inp = TransformInput(source=text, kernel=spec.kernel, launch=dict(base), base_launch=None)
        c = next(c for c, _ in p.structural_candidates(inp) if c.origin == "builtin:column")
        plan = p.tuner.states[c.key()].plan
        # what p.compile_error says of each setting's candidate, in few nvcc calls
        compiled = candidates_compile(p, [plan.build(knobs) for knobs in plan.space])
        for knobs, problem in zip(plan.space, compiled):
            v = plan.build({**knobs, "cluster": 1})  # the emulator runs one block at a time
            assert problem is None, (knobs, problem)
            if knobs.get("unroll", 4) > 4 and knobs.get("vec", 1) > 1:
                assert "__launch_bounds__(" in v.source and "rows at once" in v.source, knobs
            if knobs.get("stream"):
                assert "kp_ldcs(" in v.source
            settings.add(tuple(sorted(knobs.items())))
            runs.append((f"{stem} {knobs}", v.source, {**base, **v.launch}))
    assert any(dict(s).get("stream") for s in settings) and any(dict(s).get("unroll") == 8 for s in settings)
    batch = Batch([(src, spec.kernel) for _, src, _ in runs], str(tmp_path))
    # 37 x 45: the columns' packs unaligned (one column at a time); 600 x 64: aligned, batches of 8
    # rows (8 x 32 or 8 x 64 row groups per batch) and a remainder
    for env in (SMALL["bias_grad"], {"N": 600, "OC": 64}):
        for i, (what, src, launch) in enumerate(runs):
            got, views = run("bias_grad", spec, src, launch, env, str(tmp_path), batch=batch, index=i)
            check("bias_grad", spec, got, views, env, f"{what} at {env}")


def test_eight_rows_at_once_keep_eight_packed_loads_in_flight(tmp_path):
    """The SASS of the column split: with 8 rows at once (and __launch_bounds__ giving nvcc 64
    registers) eight 16-byte loads are issued before the first add; with streaming loads they
    are the evict-first kind. Without the bounds nvcc kept three or four in flight."""
    from kernelpro.profilers.compile import CompileOptions, compile_cuda
    text = open(os.path.join(os.path.dirname(__file__), "..", "benchmarks", "suite", "bias_grad", "naive.cu")).read()
    spec = load_spec("bias_grad", "naive")
    _, _, p, _ = _proposer(text)
    base = spec_edit.base_launch(spec)
    inp = TransformInput(source=text, kernel=spec.kernel, launch=dict(base), base_launch=None)
    c = next(c for c, _ in p.structural_candidates(inp) if c.origin == "builtin:column")
    plan = p.tuner.states[c.key()].plan
    first = dict(plan.space[0])
    for extra, ef in (({"unroll": 8}, False), ({"unroll": 8, "stream": 1}, True)):
        v = plan.build({**first, **extra})
        art = compile_cuda(tmp_path / "col.cu", CompileOptions(arch="sm_90"), text=v.source)
        (k,) = art.builds(spec.kernel)
        best = run_ = 0
        for ins in k.sass:
            if ins.base == "LDG" and ".128" in ins.opcode:
                run_ += 1
                best = max(best, run_)
                assert (".EF" in ins.opcode) == ef, ins.opcode
            elif ins.base == "FADD":
                run_ = 0
        assert best >= 8, f"{extra}: {best} packed loads before an add"


def test_a_block_per_row_with_trees_lifts_to_one_thread_per_row_and_checks_each_tree():
    """Two trees (a sum and a max) read back as shared[0] by every thread; a tree that takes the
    max of partial sums is refused; so is a sum whose threads start at 1."""
    from kernelpro.optimizer.restructure.api import Context, plans
    from kernelpro.optimizer.restructure.deteam import deteam_rows
    from kernelpro.profilers.source import parse_source
    text = """__global__ void k(float* __restrict__ out, const float* __restrict__ in, int N, int C) {
  __shared__ float sh[256];
  int row = blockIdx.x; int tid = threadIdx.x;
  float s = 0.0f, m = -INFINITY;
  for (int i = tid; i < C; i += blockDim.x) s += in[row * C + i];
  sh[tid] = s; __syncthreads();
  for (int st = blockDim.x / 2; st > 0; st >>= 1) { if (tid < st) sh[tid] += sh[tid + st]; __syncthreads(); }
  float total = sh[0];
  __syncthreads();
  for (int i = tid; i < C; i += blockDim.x) m = fmaxf(m, in[row * C + i]);
  sh[tid] = m; __syncthreads();
  for (int st = blockDim.x / 2; st > 0; st >>= 1) { if (tid < st) sh[tid] = fmaxf(sh[tid], sh[tid + st]); __syncthreads(); }
  for (int i = tid; i < C; i += blockDim.x) out[row * C + i] = in[row * C + i] / total - sh[0];
  if (tid == 0) out[row * C] += 0.0f;
}"""
    src = parse_source(text)
    new, trees = deteam_rows(src, src.kernel("k"), "N")
    assert trees == [("s", "+"), ("m", "max")]
    assert "int row = blockIdx.x * blockDim.x + threadIdx.x;" in new and "if (row < N) {" in new
    assert "for (int i = 0; i < C; i++) out[row * C + i] = in[row * C + i] / total - (m);" in new
    assert "__syncthreads" not in new and "sh[" not in new and "tid" not in new
    ctx = Context(kernel="k", path="k.cu", launch={"grid": ["N"], "block": [256]}, base_launch=None,
                  size_env={"s": {"N": 64, "C": 1000}}, scalar_params={"N": "N", "C": "C"})
    got, why = plans(text, ctx)
    assert {p.name for p in got} >= {"row-warp", "row-block"}, why
    wrong = text.replace("if (tid < st) sh[tid] += sh[tid + st];", "if (tid < st) sh[tid] = fmaxf(sh[tid], sh[tid + st]);")
    got, why = plans(wrong, ctx)
    assert not [p for p in got if p.name.startswith("row")] and any("does not combine as its loop" in w for w in why)
    ones = text.replace("float s = 0.0f,", "float s = 1.0f,")
    got, why = plans(ones, ctx)
    assert any("counts it once per thread" in w for w in why)


def test_a_block_per_row_without_trees_lifts_and_a_lone_partial_is_refused():
    """Threads that only stride the row, and thread 0 doing the whole row, lift to one thread per
    row (the grid's x in the kernel's parameters, `B * T`); a per-thread partial sum that no tree
    combines is refused (lifted, it would become the whole row's sum)."""
    from kernelpro.optimizer.restructure.api import Context, plans
    from kernelpro.optimizer.restructure.deteam import deteam_rows
    from kernelpro.profilers.source import parse_source
    from kernelpro.optimizer.restructure.text import Refuse
    strided = """__global__ void k(float* out, const float* a, const float* b, int B, int T, int C) {
  int bt = blockIdx.x;
  int t = bt % T;
  for (int c = threadIdx.x; c < C; c += blockDim.x) out[bt * C + c] = a[bt * C + c] + b[t * C + c];
}"""
    src = parse_source(strided)
    new, trees = deteam_rows(src, src.kernel("k"), "(B) * (T)")
    assert trees == [] and "int bt = blockIdx.x * blockDim.x + threadIdx.x;" in new
    assert "if (bt < (B) * (T)) {" in new and "for (int c = 0; c < C; c++)" in new and "threadIdx.x;" in new.split("{", 2)[1]
    ctx = Context(kernel="k", path="k.cu", launch={"grid": ["B * T"], "block": [256]}, base_launch=None,
                  size_env={"s": {"B": 2, "T": 64, "C": 768}}, scalar_params={"B": "B", "T": "T", "C": "C"})
    got, why = plans(strided, ctx)
    assert {p.name for p in got} & {"row-warp", "row-block"}, why

    lone = """__global__ void k(float* out, const float* x, int N, int C) {
  int row = blockIdx.x;
  if (threadIdx.x != 0 || row >= N) return;
  float s = 0.0f;
  for (int j = 0; j < C; j++) s += x[row * C + j];
  out[row] = s;
}"""
    src = parse_source(lone)
    new, _ = deteam_rows(src, src.kernel("k"), "N")
    assert "if (row >= N) return;" in new and "threadIdx.x != 0" not in new
    only = lone.replace("threadIdx.x != 0 || row >= N", "threadIdx.x > 0")
    new, _ = deteam_rows(parse_source(only), parse_source(only).kernel("k"), "N")
    assert "return;" not in new.split("if (row < N) {", 1)[1]

    partial = """__global__ void k(float* out, const float* x, int N, int C) {
  int row = blockIdx.x;
  float s = 0.0f;
  for (int j = threadIdx.x; j < C; j += blockDim.x) s += x[row * C + j];
  if (threadIdx.x == 0) out[row] = s;
}"""
    src = parse_source(partial)
    with pytest.raises(Refuse, match="each thread accumulates its own part of `s`"):
        deteam_rows(src, src.kernel("k"), "N")
    ctx = Context(kernel="k", path="k.cu", launch={"grid": ["N"], "block": [256]}, base_launch=None,
                  size_env={"s": {"N": 64, "C": 768}}, scalar_params={"N": "N", "C": "C"})
    got, _ = plans(partial, ctx)
    assert not [p for p in got if p.name.startswith("row")]


def test_rows_strided_over_the_grid_and_trees_that_pick_by_comparison_lift():
    """`for (r = blockIdx.x; r < R; r += gridDim.x)` around the row lifts to a thread grid-stride
    loop over the rows (no row count from the grid needed); a tree step written as a ternary or an
    if that picks the larger is a max tree; one that picks the smaller with `>` is a min tree; a
    thread leaving inside the loop over rows is refused."""
    from kernelpro.optimizer.restructure.deteam import deteam_rows
    from kernelpro.optimizer.restructure.text import Refuse
    from kernelpro.profilers.source import parse_source
    text = """__global__ void k(float* out, const float* x, int N, int C) {
  __shared__ float red[128];
  int tid = threadIdx.x;
  for (int r = blockIdx.x; r < N; r += gridDim.x) {
    float m = -INFINITY;
    for (int i = tid; i < C; i += blockDim.x) m = fmaxf(m, x[r * C + i]);
    red[tid] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
      if (tid < s) red[tid] = red[tid + s] > red[tid] ? red[tid + s] : red[tid];
      __syncthreads();
    }
    if (tid == 0) out[r] = red[0];
    __syncthreads();
  }
}"""
    src = parse_source(text)
    new, trees = deteam_rows(src, src.kernel("k"), None)
    assert trees == [("m", "max")]
    assert "for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < N; r += blockDim.x * gridDim.x) {" in new
    assert "out[r] = (m);" in new and "red" not in new and "tid" not in new
    iffed = text.replace("if (tid < s) red[tid] = red[tid + s] > red[tid] ? red[tid + s] : red[tid];",
                         "if (tid < s) { if (red[tid + s] > red[tid]) red[tid] = red[tid + s]; }")
    assert deteam_rows(parse_source(iffed), parse_source(iffed).kernel("k"), None)[1] == [("m", "max")]
    smaller = text.replace("? red[tid + s] : red[tid]", "? red[tid] : red[tid + s]")
    assert deteam_rows(parse_source(smaller), parse_source(smaller).kernel("k"), None)[1] == [("m", "min")]
    leaves = text.replace("    float m = -INFINITY;", "    if (tid != 0) return;\n    float m = -INFINITY;")
    with pytest.raises(Refuse, match="leaves the loop over the rows"):
        deteam_rows(parse_source(leaves), parse_source(leaves).kernel("k"), None)


WARP_ROW = """__global__ void k(float* out, const float* x, int N, int C) {
  int lane = threadIdx.x & 31;
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  if (warp >= N) return;
  float s = 0.0f;
  for (int i = lane; i < C; i += 32) s += x[warp * C + i];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffff, s, o);
  for (int i = lane; i < C; i += 32) out[warp * C + i] = x[warp * C + i] / s;
  if (lane == 0) out[warp * C] += 0.0f;
}"""


def test_a_warp_per_row_lifts_to_one_thread_per_row_and_what_it_cannot_prove_is_refused():
    """The warp index and the lane are known by their values (`& 31`, `>> 5`); the butterfly is the
    accumulator; `if (lane == 0)` goes. Refused: a shuffle that combines otherwise than its loop
    accumulates, a lane's partial no shuffle combines, a lane loop that does not step by 32, a
    shuffle that is not a reduction. The row plans then take the lifted kernel, its rows the old
    threads over 32."""
    from kernelpro.optimizer.restructure.api import Context, plans
    from kernelpro.optimizer.restructure.dewarp import dewarp_rows
    from kernelpro.optimizer.restructure.text import Refuse
    from kernelpro.profilers.source import parse_source

    def lift(text):
        src = parse_source(text)
        return dewarp_rows(src, src.kernel("k"))

    new, reds, strided = lift(WARP_ROW)
    assert reds == [("s", "+")] and not strided
    assert "int warp = blockIdx.x * blockDim.x + threadIdx.x;" in new and "__shfl" not in new and "lane" not in new
    assert "for (int i = 0; i < C; i++) s += x[warp * C + i];" in new
    ctx = Context(kernel="k", path="k.cu", launch={"grid": ["cdiv(N, 4)"], "block": [128]}, base_launch=None,
                  size_env={"s": {"N": 64, "C": 1000}}, scalar_params={"N": "N", "C": "C"})
    got, why = plans(WARP_ROW, ctx)
    assert {p.name for p in got} >= {"row-warp", "row-block"}, why
    built = next(p for p in got if p.name == "row-block").build(next(p for p in got if p.name == "row-block").space[0])
    assert built.launch["grid"] == ["N"], built.launch  # a block per row: the old grid's 4 rows per block
    assert "spread the loop(s) on line 6, 8 over a block per row" in built.description, built.description

    maxed = WARP_ROW.replace("s += __shfl_xor_sync(0xffffffff, s, o);", "s = fmaxf(s, __shfl_xor_sync(0xffffffff, s, o));")
    got, why = plans(maxed, ctx)
    assert not [p for p in got if p.name.startswith("row")] and any("do not combine as its loop" in w for w in why), why
    with pytest.raises(Refuse, match="each lane accumulates its own part of `s`"):
        lift(WARP_ROW.replace("s += __shfl_xor_sync(0xffffffff, s, o);", "C += __shfl_xor_sync(0xffffffff, C, o);"))
    with pytest.raises(Refuse, match="does not step by 32"):
        lift(WARP_ROW.replace("i < C; i += 32) s +=", "i < C; i += 16) s +="))
    with pytest.raises(Refuse, match="not a warp reduction"):
        lift(WARP_ROW.replace("if (lane == 0) out[warp * C] += 0.0f;", "out[warp] = __shfl_sync(0xffffffff, s, 3);"))


def test_a_block_size_constant_steps_like_blockdim_and_two_arrays_reduce_in_one_tree():
    """`#define BLOCK 128` (or a template parameter's default) is blockDim.x where the launch's block
    is 128, not where it is 256; a sum and a sum of squares stored to two arrays and combined in one
    tree loop are two trees; a tree loop that leaves one stored array uncombined is refused."""
    from kernelpro.optimizer.restructure.deteam import deteam_rows
    from kernelpro.optimizer.restructure.text import Refuse
    from kernelpro.profilers.source import parse_source
    text = """#define BLOCK 128
__global__ void k(float* out, const float* x, int N, int C) {
  __shared__ float s1[BLOCK];
  __shared__ float s2[BLOCK];
  int row = blockIdx.x, t = threadIdx.x;
  float a = 0.0f, b = 0.0f;
  for (int i = t; i < C; i += BLOCK) { float v = x[row * C + i]; a += v; b += v * v; }
  s1[t] = a;
  s2[t] = b;
  __syncthreads();
#pragma unroll
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (t < s) { s1[t] += s1[t + s]; s2[t] += s2[t + s]; }
    __syncthreads();
  }
  if (t == 0) out[row] = s2[0] / C - (s1[0] / C) * (s1[0] / C);
}"""

    def lift(src_text, block):
        src = parse_source(src_text)
        return deteam_rows(src, src.kernel("k"), "N", block)

    new, trees = lift(text, 128)
    assert trees == [("a", "+"), ("b", "+")]
    assert "out[row] = (b) / C - ((a) / C) * ((a) / C);" in new and "s1" not in new.split("__global__")[1]
    with pytest.raises(Refuse, match="does not step by the block size"):
        lift(text, 256)
    templ = text.replace("#define BLOCK 128\n__global__", "template <int BLOCK = 128>\n__global__")
    assert lift(templ, 128)[1] == [("a", "+"), ("b", "+")]
    half = text.replace("s2[t] += s2[t + s];", "")
    with pytest.raises(Refuse, match="each stored array exactly once"):
        lift(half, 128)


TREE_ROW = """__global__ void k(float* out, const float* in, int N, int C) {
  __shared__ float sh[256];
  int row = blockIdx.x, tid = threadIdx.x;
  float s = 0.0f;
  for (int i = tid; i < C; i += blockDim.x) s += in[row * C + i];
  sh[tid] = s;
  __syncthreads();
  for (int st = blockDim.x / 2; st > 0; st >>= 1) {
    if (tid < st) sh[tid] += sh[tid + st];
    __syncthreads();
  }
  if (tid == 0) out[row] = sh[0];
}"""


@pytest.mark.parametrize("old,new,why", [
    ("  if (tid == 0) out[row] = sh[0];", "  s = 0.0f;\n  for (int i = tid; i < C; i += blockDim.x) s += in[row * C + i] - sh[0];\n"
     "  if (tid == 0) out[row] = sh[0];", "changes `s` outside the loop|own part of `s`"),  # the accumulator reused
    ("  sh[tid] = s;", "  s = s * s;\n  sh[tid] = s;", "changes `s` outside the loop"),
    ("  if (tid == 0) out[row] = sh[0];", "  if (tid == 0) out[row] = sh[0] + s;", "uses a thread's own `s`"),
    ("  if (tid == 0) out[row] = sh[0];", "  if (tid == 0) sh[0] = sh[0] * 2.0f;\n  if (tid == 0) out[row] = sh[0];", "writes sh[0]"),
    ("int st = blockDim.x / 2;", "int st = 16;", "half the block"),
    ("st > 0;", "st > 1;", "halve its stride down to 1"),
    ("sh[tid + st]", "sh[tid + 1]", "partner not at tid + st"),
    ("if (tid < st) sh[tid] += sh[tid + st];", "sh[tid] += sh[tid + st];", "not under `if (tid < st)`"),
    ("i < C; i += blockDim.x) s +=", "; i += blockDim.x) s +=", "end is not `i < E`"),
])
def test_tree_lifts_refuse_what_would_change_the_result(old, new, why):
    """Reviewed cases: each rewrite of a correct block-per-row kernel that the lift must not take
    as the same program."""
    from kernelpro.optimizer.restructure.deteam import deteam_rows
    from kernelpro.optimizer.restructure.text import Refuse
    from kernelpro.profilers.source import parse_source
    src = parse_source(TREE_ROW)
    assert deteam_rows(src, src.kernel("k"), "N")[1] == [("s", "+")]
    bad = TREE_ROW.replace(old, new)
    assert bad != TREE_ROW
    with pytest.raises(Refuse, match="|".join(re.escape(w) for w in why.split("|"))):
        deteam_rows(parse_source(bad), parse_source(bad).kernel("k"), "N")


def test_rows_strided_over_the_grid_refuse_a_return_in_the_row():
    from kernelpro.optimizer.restructure.deteam import deteam_rows
    from kernelpro.optimizer.restructure.text import Refuse
    from kernelpro.profilers.source import parse_source
    text = """__global__ void k(float* out, const float* in, const int* len, int N, int C) {
  for (int row = blockIdx.x; row < N; row += gridDim.x) {
    if (len[row] == 0) return;
    for (int c = threadIdx.x; c < C; c += blockDim.x) out[row * C + c] = in[row * C + c];
  }
}"""
    with pytest.raises(Refuse, match="leaves the loop over the rows"):
        deteam_rows(parse_source(text), parse_source(text).kernel("k"), None)


@pytest.mark.parametrize("old,new,why", [
    ("int o = 16;", "int o = 8;", "no shuffle"),
    ("__shfl_xor_sync(0xffffffff, s, o)", "__shfl_xor_sync(0xffffffff, s, o, 16)", "no shuffle"),
    ("__shfl_xor_sync(0xffffffff, s, o)", "__shfl_xor_sync(0x0000ffff, s, o)", "no shuffle"),
    ("__shfl_xor_sync(0xffffffff, s, o)", "__shfl_xor_sync(0xffffffff, s, 1)", "no shuffle"),
    ("s += __shfl_xor_sync(0xffffffff, s, o);", "s += __shfl_xor_sync(0xffffffff, s, o) * 2.0f;", "no shuffle"),
    ("__shfl_xor_sync(0xffffffff, s, o)", "__shfl_down_sync(0xffffffff, s, o)", "no broadcast follows"),
    ("float s = 0.0f;", "float s = 1.0f;", "counts it once per lane"),
    ("  for (int o = 16;", "  s = s * s;\n  for (int o = 16;", "outside the lane loops"),
])
def test_warp_lifts_refuse_what_would_change_the_result(old, new, why):
    """A shuffle that is not a whole warp's reduction (a shorter butterfly, a width or mask below the
    warp, a fixed offset, a scaled partner) is not taken as one; a reduction shuffled down reaches lane
    0 only; a sum every lane starts at 1, or a part changed between its loop and its shuffle, differ
    from the one thread's."""
    from kernelpro.optimizer.restructure.dewarp import dewarp_rows
    from kernelpro.optimizer.restructure.text import Refuse
    from kernelpro.profilers.source import parse_source
    text = WARP_ROW
    bad = text.replace(old, new)
    assert bad != text
    with pytest.raises(Refuse, match=re.escape(why) if why != "no shuffle" else "not a warp reduction|no shuffle combines"):
        dewarp_rows(parse_source(bad), parse_source(bad).kernel("k"))


def test_a_copy_is_not_propagated_past_a_later_declaration_of_either_name():
    from kernelpro.optimizer.restructure.passes import propagate_copies
    text = """__global__ void k(float* out, const float* in, int row, int C) {
  float b = in[row];
  float a = b;
  for (int i = 0; i < C; i++) { float b = in[row * C + i]; out[row * C + i] = a * b; }
}"""
    assert propagate_copies(text, "k.cu", "k") is None
