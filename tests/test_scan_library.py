"""A prefix sum written one output per thread (thread i sums the input up to i, O(n^2) work) read by
profilers/analysis/prefix.py in its spellings and refused with reasons where it is something else; the
`scan-library` candidate (kernelpro/scan.cuh behind the kernel's signature through a host launcher)
compiles, as a cubin and as the shared library the worker loads; the block's kernel, run in the CPU
emulator, equals numpy's cumsum at lengths that are no multiples of its tiles."""
from __future__ import annotations

import ctypes
import dataclasses
import shutil

import numpy as np
import pytest

from emu_run import emulate

from kernelpro.optimizer.restructure import api
from kernelpro.profilers.analysis.prefix import PrefixSum, prefix_sum
from kernelpro.profilers.compile import CompileOptions, compile_cuda, compile_library
from kernelpro.profilers.hunt.library import LIBRARY_DIR
from kernelpro.profilers.runtime.spec import loads_spec
from kernelpro.profilers.source import parse_source

GXX = shutil.which("g++")

SPELLINGS = {
    "if_guard": ("""__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j <= i; ++j) s += in[j];
    out[i] = s;
  }
}""", ("in", "out", "n", True, "float")),
    "early_return_plus_one": ("""__global__ void k(const int* x, int* y, int N) {
  int tid = threadIdx.x + blockDim.x * blockIdx.x;
  if (tid >= N) return;
  int acc = 0;
  for (int j = 0; j < tid + 1; j++) { acc = acc + x[j]; }
  y[tid] = acc;
}""", ("x", "y", "N", True, "int")),
    "exclusive": ("""__global__ void k(const unsigned* a, unsigned* b, int n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned s = 0;
    for (unsigned j = 0; j < i; j++) s += a[j];
    b[i] = s;
  }
}""", ("a", "b", "n", False, "unsigned")),
    "typedef": ("""typedef float real;
__global__ void k(const real* v, real* p, int count) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g < count) {
    real sum = 0;
    for (int q = 0; q <= g; q++)
      sum += v[q];
    p[g] = sum;
  }
}""", ("v", "p", "count", True, "float")),
    "named_index": ("""__global__ void k(float* out, const float* in, int n) {
  int bid = blockIdx.x, tid = threadIdx.x;
  int idx = bid * blockDim.x + tid;
  if (idx < n) {
    float total = 0.f;
    for (int j = 0; j <= idx; ++j) total += in[j];
    out[idx] = total;
  }
}""", ("in", "out", "n", True, "float")),
    # one thread running the CPU's loop (`<<<1, 1>>>`), with its guard, a named index, or none
    "one_thread": ("""__global__ void k(const int* in, int* out, int n) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    int acc = 0;
    for (int i = 0; i < n; ++i) { acc += in[i]; out[i] = acc; }
  }
}""", ("in", "out", "n", True, "int")),
    "one_thread_exclusive": ("""__global__ void k(const float* x, float* y, int len) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid == 0) {
    float run = 0.0f;
    for (int i = 0; i < len; i++) { y[i] = run; run += x[i]; }
  }
}""", ("x", "y", "len", False, "float")),
    "one_thread_unguarded": ("""__global__ void k(const unsigned* in, unsigned* out, int n) {
  unsigned s = 0;
  for (int i = 0; i < n; ++i) { s += in[i]; out[i] = s; }
}""", ("in", "out", "n", True, "unsigned")),
}

NOT_SERIAL = {  # one thread's loop that is not a prefix sum, or not one thread's
    "a flag": ("if (blockIdx.x == 0 && threadIdx.x == 0)", "if (n == 0)"),
    "in place": ("out[i] = acc;", "in[i] = acc;"),
    "the sum stored later": ("acc += in[i]; out[i] = acc;", "acc += in[i]; out[i] = acc + 1;"),
    "a start of one": ("int acc = 0;", "int acc = 1;"),
    "another index": ("out[i] = acc;", "out[n - 1 - i] = acc;"),
}


@pytest.mark.parametrize("what", sorted(NOT_SERIAL))
def test_what_one_thread_does_that_is_not_a_scan_is_not_read_as_one(what):
    old, new = NOT_SERIAL[what]
    text = SPELLINGS["one_thread"][0].replace("const int* in", "int* in")
    assert old in text
    assert not isinstance(_read(text.replace(old, new)), PrefixSum), what


NOT = {
    "in place": ("for (int j = 0; j <= i; ++j) s += in[j];\n    out[i] = s;",
                 "for (int j = 0; j <= i; ++j) s += out[j];\n    out[i] = s;", "over its own input"),
    "a product": ("s += in[j];", "s += in[j] * in[j];", None),
    "a second output": ("out[i] = s;", "out[i] = s; out[0] = 1.f;", "writes 2 places"),
    "a block's index": ("int i = blockIdx.x * blockDim.x + threadIdx.x;", "int i = blockIdx.x;", None),
    "no guard": ("if (i < n) {", "{", "no guard"),
    "a double sum": ("float s = 0.0f;", "double s = 0.0;", "differ in type"),
    "a start of one": ("float s = 0.0f;", "float s = 1.0f;", None),
    "the output scaled": ("out[i] = s;", "out[i] = 2.f * s;", "not the sum itself"),
}


def _read(text):
    src = parse_source(text)
    return prefix_sum(src, src.kernels[0])


@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_each_spelling_reads_as_a_prefix_sum(name):
    text, (a, b, n, inclusive, elem) = SPELLINGS[name]
    got = _read(text)
    assert isinstance(got, PrefixSum), got
    assert (got.src, got.dst, got.count, got.inclusive, got.elem) == (a, b, n, inclusive, elem)


@pytest.mark.parametrize("what", sorted(NOT))
def test_what_is_not_a_prefix_sum_is_refused(what):
    old, new, said = NOT[what]
    text = SPELLINGS["if_guard"][0]
    assert old in text
    got = _read(text.replace(old, new))
    assert not isinstance(got, PrefixSum), what
    if said:
        assert said in got.reason and not got.not_this_shape, got
    else:
        assert got.not_this_shape, got


def _plans(text):
    k = parse_source(text).kernels[0]
    ctx = api.Context(kernel=k.name, path="k.cu", launch={"grid": ["cdiv(n, 256)"], "block": [256]},
                      base_launch=None, size_env={"small": {"n": 1000}}, scalar_params={"n": "n"})
    return api.plans(text, ctx)


def test_the_plan_replaces_the_row_plans_and_keeps_the_kernel_beside_its_launcher():
    text = SPELLINGS["if_guard"][0] + """
int main() {
  float *in, *out;
  k<<<4, 256>>>(in, out, 1000);
  return 0;
}
"""
    plans, why = _plans(text)
    assert [p.name for p in plans] == ["scan-library"], (plans, why)
    assert any("row-warp, row-block not offered" in w and "prefix sum" in w for w in why), why
    cand = plans[0].build({})
    assert cand.launch == {"host": "kp_scan_k"} and cand.kind == "structural"
    assert cand.source.startswith("#include <kernelpro/scan.cuh>")
    assert "kernelpro::scan<float>(in, out, (long long)(n), true);" in cand.source
    assert "kp_scan_k(in, out, 1000);" in cand.source and "k<<<" not in cand.source
    assert SPELLINGS["if_guard"][0] in cand.source  # the kernel as written
    exclusive = _plans(SPELLINGS["exclusive"][0])[0][0].build({})
    assert "kernelpro::scan<unsigned>(a, b, (long long)(n), false);" in exclusive.source
    plans, why = _plans(SPELLINGS["if_guard"][0].replace("float", "double"))
    assert "scan-library" not in [p.name for p in plans] and any("4-byte values" in w for w in why), why


@pytest.mark.slow
def test_the_candidate_compiles_and_its_launcher_is_exported(tmp_path):
    cand = _plans(SPELLINGS["typedef"][0])[0][0].build({})
    f = tmp_path / "k.cu"
    f.write_text(SPELLINGS["typedef"][0])
    art = compile_cuda(f, CompileOptions(), text=cand.source, use_cache=False)
    assert art.ok and {"k", "scan_tiles"} <= {b.name for b in art.kernels}, [d.message for d in art.errors][:3]
    lib = ctypes.CDLL(compile_library(f, CompileOptions(), text=cand.source, use_cache=False))
    assert hasattr(lib, "kp_scan_k")
    spec = loads_spec("""kernel = "k"
[sizes]
small = { count = 1000 }
[[args]]
name = "v"
dtype = "float32"
shape = ["count"]
[[args]]
name = "p"
dtype = "float32"
shape = ["count"]
output = true
[[args]]
name = "count"
value = "count"
[launch]
grid = ["cdiv(count, 256)"]
block = [256]
[reference]
kernel = "k"
""", tmp_path / "k.kernelpro.toml", parse_source(cand.source, str(f)))
    new = spec.with_launch(cand.launch, parse_source(cand.source, str(f)))
    assert [s.host for s in new.launches] == ["kp_scan_k"]


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
@pytest.mark.parametrize("T, dt, vec", [("float", np.float32, "true"), ("int", np.int32, "true"),
                                         ("unsigned", np.uint32, "true"), ("int", np.int32, "false"),
                                         ("float", np.float32, "true, int")])  # (int positions)
def test_the_blocks_kernel_equals_cumsum_at_any_length(T, dt, vec, tmp_path):
    src = (LIBRARY_DIR / "scan.cuh").read_text()
    rng = np.random.default_rng(1)
    for n, inclusive in ((1, True), (255, False), (256, True), (1001, True), (1001, False), (9001, True)):
        x = (rng.standard_normal(n) * 10).astype(dt) if dt != np.uint32 else rng.integers(0, 9, n).astype(dt)
        tiles = -(-n // 256)  # 64 threads x 4 values a tile
        res = emulate(src, f"kernelpro::scan_tiles<{T}, 64, 4, {vec}>",
                      [x, np.zeros(n, dt), np.int32(n) if "int" in vec else np.int64(n), np.zeros(tiles + 1, np.uint64),
                       np.bool_(inclusive)],
                      [tiles], [64], workdir=str(tmp_path))
        want = np.cumsum(x.astype(np.float64))
        if not inclusive:
            want = np.concatenate([[0.0], want[:-1]])
        got = res[1].astype(np.float64)
        if dt == np.float32:
            assert np.allclose(got, want, rtol=1e-5, atol=1e-3), (n, inclusive)
        else:
            assert np.array_equal(got, want.astype(dt).astype(np.float64)), (n, inclusive)
        assert int(res[3][0]) == tiles  # every tile took its number from the counter


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
@pytest.mark.parametrize("stop", [0, 20])
@pytest.mark.parametrize("pos", ["long long", "int"])
def test_the_look_back_adds_every_published_total_up_to_the_nearest_prefix(stop, pos, tmp_path):
    """The emulator runs blocks one after another, so a tile's predecessors have always published their prefix
    when it looks: here the state words say otherwise. The counter starts at 37 and tiles 0 to 36 are published
    as totals alone, but for tile `stop`'s inclusive prefix: tile 37 must add 36 - stop totals over one or two
    windows of 32 (lanes past the stop masked out) and the prefix. 16 values a thread as in production: four
    chunks of 128 values a warp, so the chunks' running sums are run too."""
    src = (LIBRARY_DIR / "scan.cuh").read_text()
    tile, first, count = 64 * 16, 37, 3
    n = (first + count) * tile - 5  # the last tile short
    rng = np.random.default_rng(4)
    x = rng.integers(-50, 50, n).astype(np.int32)
    totals = rng.integers(-1000, 1000, first).astype(np.int64)
    prefix = int(totals[:stop + 1].sum())  # tile stop's inclusive prefix
    state = np.zeros(first + count + 1, np.uint64)
    state[0] = first
    for j in range(first):
        flag, value = (2, prefix) if j == stop else (1, int(totals[j]))
        state[1 + j] = np.uint64((flag << 32) | (value & 0xFFFFFFFF))
    res = emulate(src, f"kernelpro::scan_tiles<int, 64, 16, true, {pos}>",
                  [x, np.zeros(n, np.int32), np.int32(n) if pos == "int" else np.int64(n), state, np.bool_(True)],
                  [count], [64], workdir=str(tmp_path))
    before = int(totals.sum())  # every total up to tile 36, through the prefix of tile `stop`
    lo = first * tile
    want = before + np.cumsum(x[lo:].astype(np.int64))
    assert np.array_equal(res[1][lo:].astype(np.int64), want)
    assert not res[1][:lo].any()  # the tiles the counter skipped are not written
    words = res[3][1 + first:1 + first + count]
    assert all(int(w) >> 32 == 2 for w in words)  # each processed tile published its inclusive prefix
    assert np.int32(np.uint32(int(words[-1]) & 0xFFFFFFFF)) == np.int32(want[-1])


@pytest.mark.gpu
def test_the_candidate_checks_against_the_kernel_as_written_on_the_gpu(tmp_path):
    """Through the worker's host launcher, against the O(n^2) kernel as the reference, off-by-one sizes too."""
    from kernelpro.profilers.runtime.measure import evaluate

    text = SPELLINGS["early_return_plus_one"][0]
    (tmp_path / "k.cu").write_text(text)
    spec_text = """kernel = "k"
[sizes]
small = { N = 5000 }
large = { N = 60000 }
[[args]]
name = "x"
dtype = "int32"
shape = ["N"]
fill = "randint:-8:8"
[[args]]
name = "y"
dtype = "int32"
shape = ["N"]
output = true
[[args]]
name = "N"
value = "N"
[launch]
grid = ["cdiv(N, 256)"]
block = [256]
[reference]
kernel = "k"
"""
    spec = loads_spec(spec_text, tmp_path / "k.kernelpro.toml")
    cand = _plans(text)[0][0].build({})
    new = spec.with_launch(cand.launch, parse_source(cand.source, str(tmp_path / "k.cu")))
    res = evaluate(tmp_path / "k.cu", new, CompileOptions(), source_text=cand.source)
    assert res.ok, res.failure
    assert res.check_sizes and all(s.check["ok"] for s in res.sizes + res.check_sizes)
    base = evaluate(tmp_path / "k.cu", spec, CompileOptions())
    large = {s.size: s.time_s for s in res.sizes}["large"]
    assert large < {s.size: s.time_s for s in base.sizes}["large"]


def test_profiling_a_file_with_a_host_step_never_builds_or_loads_its_host_code(tmp_path, monkeypatch):
    """Opening or profiling compiles device code only: the shared library (whose static initialisers would run
    in the worker) is built by GPU runs and optimizations alone (docs/security.md)."""
    import kernelpro.profilers.compile as comp
    import kernelpro.profilers.runtime.measure as measure
    from kernelpro.profilers.profile import profile_file

    def refuse(*a, **k):
        raise AssertionError("the host code was built")
    monkeypatch.setattr(comp, "compile_library", refuse)
    monkeypatch.setattr(measure, "compile_library", refuse)
    cand = _plans(SPELLINGS["if_guard"][0])[0][0].build({})
    f = tmp_path / "k.cu"
    f.write_text(cand.source + '\nstatic int kp_marker = (__builtin_trap(), 0);\n')
    (tmp_path / "k.kernelpro.toml").write_text('kernel = "k"\n[sizes]\nsmall = { n = 1000 }\n[[args]]\nname = "in"\n'
                                               'dtype = "float32"\nshape = ["n"]\n[[args]]\nname = "out"\n'
                                               'dtype = "float32"\nshape = ["n"]\noutput = true\n[[args]]\nname = "n"\n'
                                               'value = "n"\n[[launches]]\nkernel = "k"\nhost = "kp_scan_k"\n'
                                               '[reference]\nkernel = "k"\ngrid = ["cdiv(n, 256)"]\nblock = [256]\n')
    rep = profile_file(f, CompileOptions())
    assert any(k.name == "k" for k in rep.kernels)


# --- a multi-kernel scan (block scans, a scan of the totals, the offsets added back) as one library scan -------
SUITE_SCAN = __import__("pathlib").Path(__file__).resolve().parents[1] / "benchmarks" / "suite" / "scan"


def _chain_ctx(stem: str, steps=None):
    from kernelpro.optimizer.builtin import scalar_params_of, size_env
    from kernelpro.profilers.runtime.spec import load_spec
    path = SUITE_SCAN / f"{stem}.cu"
    spec = load_spec(SUITE_SCAN / f"{stem}.kernelpro.toml")
    step = spec.kernel_steps[0]
    sp = scalar_params_of(spec, spec.kernel, path)
    ctx = api.Context(kernel=spec.kernel, path=str(path), launch={"grid": list(step.grid), "block": list(step.block)},
                      base_launch=None, size_env=size_env(spec, spec.kernel, sp), scalar_params=sp,
                      steps=tuple((s.kernel, tuple(s.args)) for s in spec.kernel_steps) if steps is None else steps)
    return path, spec, ctx


@pytest.mark.parametrize("stem, kernel", [("naive", "scan_blocks"), ("naive_blelloch", "prescan")])
def test_a_chain_of_scan_passes_becomes_one_host_step_of_the_library_scan(stem, kernel):
    """Both three-pass scans of the suite (Hillis-Steele and Blelloch block scans, a serial or a block scan of the
    totals, the offsets added back): block 0 run on the CPU shows inclusive prefix sums of `inp` in `out`, so the
    whole chain becomes one call of kernelpro::scan with the first pass's arguments; the spec binds it, and the
    host code's own launches stay (its other passes would otherwise add the offsets twice)."""
    path, spec, ctx = _chain_ctx(stem)
    text = path.read_text()
    plans, why = api.plans(text, ctx)
    assert plans[0].name == "scan-library", why
    c = plans[0].build({})
    assert f"return (int)kernelpro::scan<int>(inp, out, (long long)(n), true);" in c.source
    assert c.launch == {"launches": [{"kernel": kernel, "host": f"kp_scan_{kernel}", "args": ["out", "inp", "sums", "n"]}]}
    assert c.runs_host_launcher
    assert text.count("<<<") == c.source.count("<<<")  # no host launch rewritten
    new = spec.with_launch(c.launch, parse_source(c.source, str(path)))
    assert [(s.kernel, s.host) for s in new.launches] == [(kernel, f"kp_scan_{kernel}")]
    assert [a.name for a in new.scratch] == ["sums"]  # kept: the launcher takes it, unused
    assert any("host code still launches them" in n for n in c.notes)
    from kernelpro.optimizer import spec_edit  # the branch's spec: one host step, the scratch kept, loads again
    rendered = spec_edit.render_spec((SUITE_SCAN / f"{stem}.kernelpro.toml").read_text(), c.launch)
    again = loads_spec(rendered, SUITE_SCAN / f"{stem}.kernelpro.toml", parse_source(c.source, str(path)))
    assert [(s.kernel, s.host, list(s.args)) for s in again.launches] == \
        [(kernel, f"kp_scan_{kernel}", ["out", "inp", "sums", "n"])]


def test_a_chain_that_is_not_a_whole_scan_keeps_its_passes_and_says_why():
    path, spec, ctx = _chain_ctx("naive")
    text = path.read_text()
    cut = dataclasses.replace(ctx, steps=ctx.steps[:2])  # no pass adds the offsets back
    plans, why = api.plans(text, cut)
    assert "scan-library" not in [p.name for p in plans]
    assert any("does not add the scanned totals" in w for w in why), why
    touch = dataclasses.replace(ctx, steps=(ctx.steps[0], ("scan_sums", ("out", "n")), ctx.steps[2]))
    plans, why = api.plans(text, touch)
    assert "scan-library" not in [p.name for p in plans]
    assert any("touches more than the block totals" in w for w in why), why
    alone = dataclasses.replace(ctx, steps=())  # no spec chain known: the block-scan plan only
    plans, why = api.plans(text, alone)
    assert [p.name for p in plans][:1] == ["block-scan"]


@pytest.mark.slow
def test_the_chain_candidate_builds_as_the_shared_library_the_worker_loads(tmp_path):
    path, spec, ctx = _chain_ctx("naive")
    c = api.plans(path.read_text(), ctx)[0][0].build({})
    (tmp_path / "naive.cu").write_text(c.source)
    lib = compile_library(tmp_path / "naive.cu", CompileOptions(), text=c.source)
    assert hasattr(ctypes.CDLL(str(lib)), "kp_scan_scan_blocks")


@pytest.mark.gpu
def test_the_chain_candidate_checks_and_beats_the_three_passes_on_the_gpu(tmp_path):
    """Through the worker's host launcher at the suite's sizes and their off-by-one siblings, against the spec's
    reference; faster than the three passes at the large size."""
    from kernelpro.profilers.runtime.measure import evaluate
    from kernelpro.profilers.runtime.spec import load_spec
    for f in ("naive.cu", "naive.kernelpro.toml", "ref.py"):
        shutil.copy(SUITE_SCAN / f, tmp_path / f)
    path, _, ctx = _chain_ctx("naive")
    spec = load_spec(tmp_path / "naive.kernelpro.toml")
    c = api.plans(path.read_text(), ctx)[0][0].build({})
    new = spec.with_launch(c.launch, parse_source(c.source, str(tmp_path / "naive.cu")))
    ours = evaluate(tmp_path / "naive.cu", new, CompileOptions(), source_text=c.source)
    assert ours.ok, ours.failure
    assert ours.check_sizes and all(s.check["ok"] for s in ours.sizes + ours.check_sizes)
    base = evaluate(tmp_path / "naive.cu", spec, CompileOptions())
    t = {s.size: s.time_s for s in ours.sizes}
    assert t["large"] < {s.size: s.time_s for s in base.sizes}["large"]
