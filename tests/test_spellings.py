"""The suite's patterns in other spellings people write (tests/spellings/*.cu, written here):
double accumulators, a max through a helper function, a template kernel, grid-stride loops over
rows, columns and elements, a max seeded with the row's first element, `y[j] = y[j] / s`, load
and store intrinsics, `__hadd`, quotient chains. Each file says its launch and the rewrite its
candidates must include; every structural candidate compiles with nvcc and computes the
family's reference in the CPU emulator."""
from __future__ import annotations

import glob
import math
import os
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from compile_batch import candidates_compile
from emu_run import Batch, emulate
from suite_emu import SMALL, SUITE, check, run

from kernelpro.optimizer import spec_edit
from kernelpro.optimizer.builtin import BuiltinProposer
from kernelpro.optimizer.restructure import prelude, rows
from kernelpro.optimizer.transforms import TransformInput
from kernelpro.profilers.runtime.spec import load_spec
from kernelpro.profilers.source import parse_source

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "spellings")
FILES = sorted(glob.glob(os.path.join(HERE, "*.cu")))
GXX = shutil.which("g++")


def _family(stem: str) -> str:
    return next(f for f in sorted(SMALL, key=len, reverse=True) if stem.startswith(f))


def _spec(path: str, tmp_path) -> tuple:
    """The family's spec with this file's launch (benchmarks/suite/make_specs.py), written beside a
    copy of the kernel."""
    sys.path.insert(0, SUITE)
    from make_specs import spelling_spec
    stem = os.path.basename(path)[:-3]
    text = open(path).read()
    fam, spec_text = spelling_spec(Path(path), Path(SUITE))
    cu = tmp_path / f"{stem}.cu"
    cu.write_text(text)
    (tmp_path / f"{stem}.kernelpro.toml").write_text(spec_text)
    expect = re.search(r"// expect: (.*)", text).group(1)
    return fam, str(cu), load_spec(str(tmp_path / f"{stem}.kernelpro.toml")), text, expect


@pytest.mark.slow
@pytest.mark.skipif(GXX is None, reason="needs g++ for the emulator")
@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.basename(p)[:-3])
def test_spelling_is_restructured_and_computes_the_reference(path, tmp_path):
    fam, cu, spec, text, expect = _spec(path, tmp_path)
    base = spec_edit.base_launch(spec)
    prop = BuiltinProposer(spec.kernel, base, [], path=cu, spec=spec)
    cands = prop.structural_candidates(TransformInput(source=text, kernel=spec.kernel, launch=dict(base),
                                                      base_launch=None))
    assert cands, f"no structural candidate: {prop.plans_refused}"
    assert any(expect in c.description for c, _ in cands), [c.description for c, _ in cands]
    runs = [("as written", text, base)]
    compiled = candidates_compile(prop, [c for c, _ in cands])  # prop.compile_error of each, in few nvcc calls
    for (c, _), problem in zip(cands, compiled):
        assert problem is None, (c.description, problem)
        bounds = parse_source(c.source).kernel(spec.kernel).launch_bounds  # a launch above them fails
        assert bounds is None or bounds[0] >= math.prod(int(b) for b in c.launch["block"]), c.description
        knobs = dict(c.knobs)
        if knobs.get("cluster", 1) > 1:  # the emulator runs one block at a time (clusters: GPU tests)
            c = prop.tuner.states[c.key()].plan.build({**knobs, "cluster": 1})
        runs.append((c.description, c.source, {**base, **c.launch}))
    ns = re.search(r"^namespace (\w+)", text, re.M)
    name = (f"{ns.group(1)}::" if ns else "") + spec.kernel + ("<float>" if "template __global__" in text else "")
    batch = Batch([(src, name) for _, src, _ in runs], str(tmp_path))
    for i, (what, src, launch) in enumerate(runs):
        got, views = run(fam, spec, src, launch, SMALL[fam], str(tmp_path), batch=batch, index=i)
        check(fam, spec, got, views, SMALL[fam], what)
    added = [a for a in spec.args if a.output and a.fill == "zeros"]
    if added:  # an output the kernel adds into: from random values, every candidate adds as written does
        for a in added:
            a.fill = "randn"
        first = None
        for i, (what, src, launch) in enumerate(runs):
            got, _ = run(fam, spec, src, launch, SMALL[fam], str(tmp_path), batch=batch, index=i, seed=3)
            first = first or got
            for k, v in got.items():
                assert np.allclose(v, first[k], rtol=spec.rtol, atol=1e-5), f"{what}: {k} differs from the kernel as written"


def test_every_spelling_names_its_launch_and_expectation():
    assert len(FILES) >= 12
    for p in FILES:
        head = open(p).read().split("\n")[:2]
        assert head[0].startswith("// launch: grid ") and head[1].startswith("// expect: "), p
        assert _family(os.path.basename(p)[:-3]) in SMALL


TEMPLATE_MAX = """
template <class T> __global__ void limits(T* lo, T* hi) {
  lo[0] = MAX_ID;
  hi[0] = MIN_ID;
}
"""


@pytest.mark.skipif(GXX is None, reason="needs g++ for the emulator")
def test_a_template_parameter_reduction_starts_from_its_types_limits(tmp_path):
    # the identity of a max or min over `T` is written for the instantiation (kp_limits)
    src = parse_source("template <class T> __global__ void k(T* p) {}")
    lo, hi = rows.identity("max", "T", src), rows.identity("min", "T", src)
    assert lo == "kp_limits<T>::lowest()" and hi == "kp_limits<T>::highest()"
    code = prelude.with_prelude(TEMPLATE_MAX.replace("MAX_ID", lo).replace("MIN_ID", hi))
    for t, want in ((np.float32, (-np.inf, np.inf)), (np.int32, (-2**31, 2**31 - 1)),
                    (np.uint32, (0, 2**32 - 1)), (np.int64, (-2**63, 2**63 - 1)), (np.int16, (-2**15, 2**15 - 1))):
        cname = {np.float32: "float", np.int32: "int", np.uint32: "unsigned", np.int64: "long long",
                 np.int16: "short"}[t]
        out = emulate(code, f"limits<{cname}>", [np.zeros(1, t), np.zeros(1, t)], [1], [1], str(tmp_path))
        assert (out[0][0], out[1][0]) == want, cname


PROMOTE = """
__global__ void colsum(float* __restrict__ s, const float* __restrict__ x, int N, int C) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < C) {
    s[INDEX] = 0.0f;
    for (int r = 0; r < N; r++) s[INDEX] += x[r * C + c];
    EXTRA
  }
}
"""


@pytest.mark.parametrize("index, extra, restrict, applies", [
    ("c", "", True, True),
    ("c", "", False, False),          # s may be x: the loop's reads could see the sums
    ("0", "", True, False),           # one element for every column: not the column's own
    ("c", "s[c + 1] = 1.0f;", True, False),  # another element of s in the column's code
    ("c", "if (N > 4) return;", True, False),  # a return would skip the store at the end
])
def test_an_element_updated_in_memory_is_held_in_a_register_only_where_that_is_the_same(index, extra, restrict,
                                                                                          applies):
    from kernelpro.optimizer.restructure.passes import promote_elements
    text = PROMOTE.replace("INDEX", index).replace("EXTRA", extra)
    if not restrict:
        text = text.replace(" __restrict__", "")
    new = promote_elements(text, "colsum.cu", "colsum")
    assert (new is not None) == applies
    if applies:
        body = prelude.strip_prelude(new)
        assert "s[c] +=" not in body and body.count("s[c] = kp_s_") == 1  # one store, after the loop
        assert body.index("kp_s_5 += x[r * C + c]") < body.index("s[c] = kp_s_5")


def test_the_kernels_own_launch_bounds_follow_the_new_block():
    from kernelpro.optimizer.restructure.launch import add_attribute, fit_launch_bounds
    after_void = 'extern "C" __global__ void __launch_bounds__(256, 2) k(float* x) { x[0] = 1; }\n'
    new, notes = fit_launch_bounds(after_void, "k.cu", "k", 1024)
    assert "__launch_bounds__(1024) k(" in new and notes == [
        "the kernel's __launch_bounds__(256, 2) became __launch_bounds__(1024) for blocks of 1024 threads"]
    assert fit_launch_bounds(after_void, "k.cu", "k", 256) == (after_void, [])  # within them: unchanged
    templ = "template <int B> __global__ void __launch_bounds__(B) k(float* x) {}\n"
    new, notes = fit_launch_bounds(templ, "k.cu", "k", 512)
    assert new == templ and notes == ["the kernel's __launch_bounds__(B) must allow 512 threads per block"]
    # attributes go right after __global__, whatever precedes it or where the bounds are written
    assert add_attribute(after_void, "k.cu", "k", "__cluster_dims__(1, 8, 1)", True).startswith(
        'extern "C" __global__ __cluster_dims__(1, 8, 1) void __launch_bounds__(256, 2) k(')
    assert add_attribute(after_void, "k.cu", "k", "__launch_bounds__(64)", False) is None
    assert add_attribute(after_void, "k.cu", "nope", "__launch_bounds__(64)", True) is None


def test_suite_run_takes_a_spelling_as_its_familys_naive_kernel(tmp_path):
    # benchmarks/suite_run.py --files: a spelling is optimized against its family's best
    sys.path.insert(0, os.path.join(SUITE, ".."))
    import suite_run
    fam, stem, spelled = suite_run.naive_file(Path(HERE) / "bias_grad_acc.cu")
    assert (fam, stem) == ("bias_grad", "bias_grad_acc")
    repo = suite_run.make_repo(fam, spelled)
    spec = load_spec(str(repo / "bias_grad_acc.kernelpro.toml"))
    best = load_spec(str(repo / "best.kernelpro.toml"))
    assert spec.kernel == best.kernel and spec.sizes == best.sizes
    assert next(a for a in spec.args if a.name == "dbias").fill == "zeros"  # it adds into dbias
    assert spec.launches[0].shared_bytes == "512*4" and spec.launches[0].grid == ("OC",)
    assert suite_run.naive_file(Path(SUITE) / "encoder" / "naive_elem.cu") == ("encoder", "naive_elem", None)
    with pytest.raises(ValueError, match="starts with no family"):
        sys.path.insert(0, SUITE)
        from make_specs import spelling_spec
        (tmp_path / "matmul_x.cu").write_text("// launch: grid 1 block 1\n")
        spelling_spec(tmp_path / "matmul_x.cu")


WELFORD = """
__global__ void stats(float* mean, float* var, const float* x, int N, int C) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < N) {
    float m = 0.0f, s = 0.0f;
    for (int i = 0; i < C; i++) {
      const float d = x[r * C + i] - m;
      m += d / (i + 1);
      s += d * (x[r * C + i] - m);
    }
    mean[r] = m;
    var[r] = s / C;
  }
}
"""


@pytest.mark.parametrize("change, applies", [
    ("", True),
    ("m += d / (i + 1);|m += d / (i + 2);", False),      # not a mean
    ("s += d * (x[r * C + i] - m);|s += d * d;", False),  # not the squared deviations
    ("float m = 0.0f, s = 0.0f;|float m = 1.0f, s = 0.0f;", False),  # not from zero
])
def test_a_running_mean_and_variance_becomes_two_passes_only_when_it_is_one(change, applies):
    from kernelpro.optimizer.restructure.passes import split_welford
    text = WELFORD
    if change:
        old, new = change.split("|")
        text = text.replace(old, new)
    out = split_welford(text, "stats.cu", "stats")
    assert (out is not None) == applies
    if applies:
        assert "for (int i = 0; i < C; i++) { m += x[r * C + i]; }" in out
        assert "m = (C) > 0 ? m / (C) : m;" in out
        assert "{ const float kp_d = x[r * C + i] - m; s += kp_d * kp_d; }" in out
