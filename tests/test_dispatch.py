"""Size-specialised results (optimizer/dispatch.py, issue 30): where another candidate beats the best at some
sizes, one candidate that picks per size through `when` conditions on the spec's launches. The merged file is
compiled with nvcc and each size's kernel run in the CPU emulator against numpy; the spec's `when` is parsed,
checked and written; and `optimize` saves the dispatch as a branch when it is the fastest."""
from __future__ import annotations

import json
import os
import re
import shutil

import git
import numpy as np
import pytest

from compile_batch import compile_each
from emu_run import Batch

from kernelpro.optimizer import dispatch, spec_edit
from kernelpro.optimizer.model import Budget, Evaluation
from kernelpro.optimizer.restructure import api
from kernelpro.profilers.compile import CompileOptions
from kernelpro.profilers.runtime.expr import ExprError, evaluate_condition
from kernelpro.profilers.runtime.spec import SpecError, load_spec
from kernelpro.profilers.source import parse_source

HERE = os.path.dirname(os.path.abspath(__file__))
GXX = shutil.which("g++")
SIZES = {"small": {"M": 37, "N": 53, "K": 29}, "large": {"M": 70, "N": 90, "K": 41}}
SPEC = """kernel = "matmul"

[sizes]
small = { M = 37, N = 53, K = 29 }
large = { M = 70, N = 90, K = 41 }

[[args]]
name = "a"
dtype = "float32"
shape = ["M * K"]
fill = "randn"

[[args]]
name = "b"
dtype = "float32"
shape = ["K * N"]
fill = "randn"

[[args]]
name = "c"
dtype = "float32"
shape = ["M * N"]
output = true

[[args]]
name = "M"
value = "M"

[[args]]
name = "N"
value = "N"

[[args]]
name = "K"
value = "K"

[reference]
kernel = "matmul"

[launch]
grid = ["cdiv(N, 16)", "cdiv(M, 16)"]
block = [16, 16]
"""


@pytest.fixture
def setup(tmp_path):
    text = open(os.path.join(HERE, "matmul", "gemm_xcols.cu")).read()
    (tmp_path / "mm.cu").write_text(text)
    (tmp_path / "mm.kernelpro.toml").write_text(SPEC)
    spec = load_spec(tmp_path / "mm.kernelpro.toml")
    k = parse_source(text).kernels[0]
    launch = {"grid": ["cdiv(N, 16)", "cdiv(M, 16)"], "block": [16, 16]}
    ctx = api.Context(kernel="matmul", path=str(tmp_path / "mm.cu"), launch=launch, base_launch=dict(launch),
                      size_env=dict(SIZES), scalar_params={"M": "M", "N": "N", "K": "K"})
    plans = {p.name: p for p in api.plans(text, ctx)[0]}
    tiles = plans["matmul-tiles"].build(plans["matmul-tiles"].space[0])
    split = plans["matmul-3xtf32"].build(plans["matmul-3xtf32"].space[0])
    return tmp_path, spec, k, tiles, split


def ev(small, large):
    return Evaluation(ok=True, times_s={"small": small, "large": large})


def test_conditions_are_comparisons_of_size_arithmetic_and_nothing_else():
    assert evaluate_condition("M * N * K >= 1e5", {"M": 70, "N": 90, "K": 41})
    assert not evaluate_condition("M * N * K >= 1e5 and M < 50", {"M": 70, "N": 90, "K": 41})
    assert evaluate_condition("not (M < 10) or N == 3", {"M": 70, "N": 90})
    for bad in ("M * N", "open('x') > 1", "M if N else K", "[M] > 1"):
        with pytest.raises(ExprError):
            evaluate_condition(bad, {"M": 1, "N": 1, "K": 1})


def test_a_launch_with_when_runs_only_where_it_holds_and_a_bad_when_says_where(tmp_path):
    text = SPEC.replace('kernel = "matmul"\n\n[launch]', 'kernel = "matmul"\ngrid = ["cdiv(N, 16)", "cdiv(M, 16)"]\n'
                        'block = [16, 16]\n\n[launch]').replace(
                        '[launch]\ngrid = ["cdiv(N, 16)", "cdiv(M, 16)"]\nblock = [16, 16]\n',
                        '[[launches]]\nkernel = "matmul"\nwhen = "M * N * K < 1e5"\ngrid = ["cdiv(N, 16)", "cdiv(M, 16)"]'
                        '\nblock = [16, 16]\n\n[[launches]]\nkernel = "matmul"\nwhen = "M * N * K >= 1e5"\n'
                        'grid = ["cdiv(N, 32)", "cdiv(M, 8)"]\nblock = [32, 8]\n')
    (tmp_path / "s.kernelpro.toml").write_text(text)
    shutil.copy(os.path.join(HERE, "matmul", "gemm_xcols.cu"), tmp_path / "mm.cu")
    (tmp_path / "s.kernelpro.toml").write_text(text.replace('kernel = "matmul"\n\n[sizes]',
                                                            'kernel = "matmul"\nsource = "mm.cu"\n\n[sizes]', 1))
    spec = load_spec(tmp_path / "s.kernelpro.toml")
    assert [s.block for s in spec.steps_at("small")] == [("16", "16")]
    assert [s.block for s in spec.steps_at("large")] == [("32", "8")]
    assert spec.launches[1].to_table()["when"] == "M * N * K >= 1e5"
    (tmp_path / "s.kernelpro.toml").write_text(text.replace('when = "M * N * K < 1e5"', 'when = "Q > 3"')
                                               .replace('kernel = "matmul"\n\n[sizes]',
                                                        'kernel = "matmul"\nsource = "mm.cu"\n\n[sizes]', 1))
    with pytest.raises(SpecError, match="Q is not a size variable"):
        load_spec(tmp_path / "s.kernelpro.toml")


def test_the_split_needs_one_switch_over_the_sizes_a_margin_and_the_same_flags(setup):
    tmp, spec, k, tiles, split3 = setup
    root = (tiles, ev(9, 9))
    got = dispatch.plan(spec, (split3, ev(1, 2)), [root, (split3, ev(1, 2)), (tiles, ev(3, 1))])
    assert isinstance(got, dispatch.Split) and got.runs[0] is split3 and got.runs[-1] is tiles
    assert got.sizes[0] == ["small"] and got.sizes[-1] == ["large"] and got.measure == "K * M * N"
    assert 37 * 53 * 29 < got.thresholds[0] < 70 * 90 * 41
    # within the margin everywhere: nothing to specialise
    assert isinstance(dispatch.plan(spec, (split3, ev(1, 1)), [(split3, ev(1, 1)), (tiles, ev(3, 0.98))]), str)
    # other flags for the other variant: one file takes one set
    fast = type(tiles)(source=tiles.source, launch=tiles.launch, flags=("--use_fast_math",), kind="structural")
    assert "flags" in dispatch.plan(spec, (split3, ev(1, 2)), [(split3, ev(1, 2)), (fast, ev(3, 1))])
    # a host launcher (the library's GEMM covers every size itself) is neither split nor a side of a split
    lib = type(tiles)(source=tiles.source, launch={"host": "kp_gemm_matmul"}, kind="structural")
    assert "host launcher" in dispatch.plan(spec, (lib, ev(1, 2)), [(lib, ev(1, 2)), (tiles, ev(3, 1))])
    assert isinstance(dispatch.plan(spec, (split3, ev(1, 2)), [(split3, ev(1, 2)), (lib, ev(3, 1))]), str)


@pytest.mark.slow
@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_the_dispatch_compiles_and_each_size_runs_its_own_kernel_correctly(setup):
    tmp, spec, k, tiles, split3 = setup
    s = dispatch.plan(spec, (split3, ev(1, 2)), [(split3, ev(1, 2)), (tiles, ev(3, 1))])
    cand = dispatch.build(spec, s, "matmul")
    assert cand.origin == "builtin:dispatch" and any("per-size dispatch" in n for n in cand.notes)
    names = [st["kernel"] for st in cand.launch["launches"]]
    assert names == ["matmul", "matmul_kp_large"]
    assert compile_each(str(tmp / "mm.cu"), [(n, cand.source, ()) for n in names],
                        CompileOptions(arch="sm_90")) == [None, None]
    new = spec.with_launch(cand.launch, parse_source(cand.source))  # the spec takes it, each step checked
    from kernelpro.optimizer.evaluator import GpuEvaluator

    # the GPU evaluator checks the launches against the candidate, not the file on disk (which lacks the
    # second kernel: on the H100 the dispatch failed with "kernel 'sgemm_kp_large' is not in naive.cu")
    assert "matmul_kp_large" not in (tmp / "mm.cu").read_text()
    assert [st.kernel for st in GpuEvaluator(tmp / "mm.cu", "matmul", spec, pool=object()).spec_for(cand).launches] == names
    batch = Batch([(cand.source, n) for n in names], str(tmp))
    rng = np.random.default_rng(1)
    for size, env in SIZES.items():
        (step,) = new.steps_at(size)
        M, N, K = env["M"], env["N"], env["K"]
        a, b = rng.standard_normal((M, K)).astype(np.float32), rng.standard_normal((K, N)).astype(np.float32)
        out = batch.run(names.index(step.kernel), [a.reshape(-1), b.reshape(-1), np.zeros(M * N, np.float32), M, N, K],
                        list(new.grid(step, size)), list(new.block(step, size)))
        assert step.kernel == ("matmul" if size == "small" else "matmul_kp_large")
        assert np.allclose(out[2].reshape(M, N), a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4), size
    # and the branch's spec is written with both launches and their conditions
    text = spec_edit.render_spec(SPEC, cand.launch)
    assert text.count("[[launches]]") == 2 and "[launch]" not in text and f"when = \"K * M * N >= {s.thresholds[0]:g}\"" in text
    (tmp / "d.cu").write_text(cand.source)
    (tmp / "d.kernelpro.toml").write_text(text.replace('kernel = "matmul"\n\n[sizes]',
                                                       'kernel = "matmul"\nsource = "d.cu"\n\n[sizes]', 1))
    again = load_spec(tmp / "d.kernelpro.toml")  # loads as written, the reference kernel given [launch]'s grid
    assert [x.kernel for x in again.steps_at("large")] == ["matmul_kp_large"] and again.reference["kernel"] == "matmul"


@pytest.mark.slow
def test_optimize_saves_the_dispatch_when_it_is_the_fastest(tmp_path):
    r = git.Repo.init(tmp_path)
    r.git.config("user.name", "Test")
    r.git.config("user.email", "t@example.com")
    shutil.copy(os.path.join(HERE, "matmul", "gemm_xcols.cu"), tmp_path / "mm.cu")
    (tmp_path / "mm.kernelpro.toml").write_text(SPEC)
    r.git.add(".")
    r.git.commit("-m", "kernel")

    class PerSize:
        """The tiles win at the large size, the tensor cores at the small; the dispatch gets each one's time."""
        def evaluate(self, cands):
            out = []
            for c in cands:
                if c.origin == "builtin:dispatch":
                    out.append(ev(1e-3, 1e-3))
                elif "tensor cores" in c.description:
                    out.append(ev(1e-3, 4e-3))
                elif "shared-memory tiles" in c.description:
                    out.append(ev(4e-3, 1e-3))
                else:
                    out.append(ev(9e-3, 9e-3))
            return out

    from kernelpro.optimizer.run import RunConfig, optimize

    class PerSizeEnergy(PerSize):
        def evaluate(self, cands):
            out = super().evaluate(cands)
            for e in out:
                e.energy_j = {s: 100 * t for s, t in e.times_s.items()}
            return out

    events = []  # the energy objective: the split reads times, so it says it does not split
    optimize(RunConfig(file=tmp_path / "mm.cu", kernel="matmul", budget=Budget(evaluations=4), objective="energy"),
             on_event=events.append, evaluator=PerSizeEnergy())
    assert any(e.get("message") == "no per-size dispatch for the energy objective" for e in events)
    events = []
    out = optimize(RunConfig(file=tmp_path / "mm.cu", kernel="matmul", budget=Budget(evaluations=4)),
                   on_event=events.append, evaluator=PerSize())
    notes = [e["message"] for e in events if e["type"] == "note" and "dispatch" in e["message"]]
    assert notes and "per-size dispatch" in notes[-1], notes
    tip = r.commit(out.best_branch)
    spec_text = tip.tree["mm.kernelpro.toml"].data_stream.read().decode()
    assert spec_text.count("[[launches]]") == 2 and "when = " in spec_text
    assert "matmul_kp_large" in tip.tree["mm.cu"].data_stream.read().decode()
    note = json.loads(r.git.notes("--ref=kernelpro", "show", tip.hexsha))
    assert note["origin"] == "builtin:dispatch" and any("per-size dispatch" in n for n in note["notes"])
    assert events[-1]["type"] == "done" and events[-1]["best_branch"] == out.best_branch


# the product launched twice, t = a b then d = t c: SPEC's arguments with c an input, d the output, P and t
CHAIN = (SPEC.split("[reference]")[0].replace("K = 29 }", "K = 29, P = 23 }").replace("K = 41 }", "K = 41, P = 66 }")
         .replace('shape = ["M * N"]\noutput = true', 'shape = ["N * P"]\nfill = "randn"') + """[[args]]
name = "d"
dtype = "float32"
shape = ["M * P"]
output = true

[[args]]
name = "P"
value = "P"

[[scratch]]
name = "t"
dtype = "float32"
shape = ["M * N"]

[reference]
python = "ref.py:chain"

[[launches]]
memset = "t"
value = 0

[[launches]]
kernel = "matmul"
grid = ["cdiv(N, 16)", "cdiv(M, 16)"]
block = [16, 16]
args = ["a", "b", "t", "M", "N", "K"]

[[launches]]
kernel = "matmul"
grid = ["cdiv(P, 16)", "cdiv(M, 16)"]
block = [16, 16]
args = ["t", "c", "d", "M", "P", "N"]
""")


@pytest.mark.slow
@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_a_chain_launching_the_kernel_twice_gets_a_dispatch_for_each_launch(setup):
    """gemm_chain on the H100: the tiles were the fastest at 4096 x 1024 x 4096 x 1024 (1.70 ms against 2.62 for
    3xTF32, which won the smaller sizes), and the dispatch refused a spec of several steps. Each launch of the
    kernel now becomes two, each grid rebound to its own launch's sizes; the memset stays."""
    tmp, _, k, tiles, split3 = setup
    (tmp / "ref.py").write_text("def chain(a, b, c, M, N, K, P, **_):\n    return {'d': (a.reshape(M, K) @ b.reshape(K, N) @ c.reshape(N, P)).ravel()}\n")
    (tmp / "chain.kernelpro.toml").write_text(CHAIN.replace('kernel = "matmul"\n', 'kernel = "matmul"\nsource = "mm.cu"\n', 1))
    spec = load_spec(tmp / "chain.kernelpro.toml")
    s = dispatch.plan(spec, (split3, ev(1, 2)), [(split3, ev(1, 2)), (tiles, ev(3, 1))])
    assert isinstance(s, dispatch.Split) and s.measure == "K * M * N * P"
    cand = dispatch.build(spec, s, "matmul")
    steps = cand.launch["launches"]
    assert [st.get("kernel", st.get("memset")) for st in steps] == ["t", "matmul", "matmul_kp_large", "matmul",
                                                                    "matmul_kp_large"]
    assert steps[0] == {"memset": "t", "value": 0}
    assert steps[1]["args"] == steps[2]["args"] == ["a", "b", "t", "M", "N", "K"]
    assert steps[3]["args"] == steps[4]["args"] == ["t", "c", "d", "M", "P", "N"]
    # the tiles' grid is written for the first product (N columns); the second product's is over P
    assert "N" in str(steps[2]["grid"][0]) and "P" in str(steps[4]["grid"][0]) and "N" not in str(steps[4]["grid"][0])
    new = spec.with_launch(cand.launch, parse_source(cand.source))
    names = ["matmul", "matmul_kp_large"]
    batch = Batch([(cand.source, n) for n in names], str(tmp))
    rng = np.random.default_rng(2)
    for size in ("small", "large"):
        env = new.env(size)
        M, N, K, P = env["M"], env["N"], env["K"], env["P"]
        run = new.steps_at(size)
        assert [st.memset or st.kernel for st in run] == ["t"] + [names[size == "large"]] * 2
        a, b, c = (rng.standard_normal(n).astype(np.float32) for n in (M * K, K * N, N * P))
        t = batch.run(names.index(run[1].kernel), [a, b, np.zeros(M * N, np.float32), M, N, K],
                      list(new.grid(run[1], size)), list(new.block(run[1], size)))[2]
        d = batch.run(names.index(run[2].kernel), [t, c, np.zeros(M * P, np.float32), M, P, N],
                      list(new.grid(run[2], size)), list(new.block(run[2], size)))[2]
        want = a.reshape(M, K).astype(np.float64) @ b.reshape(K, N) @ c.reshape(N, P)
        assert np.allclose(d.reshape(M, P), want, rtol=1e-3, atol=1e-3), size
    text = spec_edit.render_spec(CHAIN, cand.launch)
    assert text.count("[[launches]]") == 5 and 'memset = "t"' in text and text.count("when = ") == 4
    # a spec whose launches already carry `when` is left alone
    (tmp / "w.kernelpro.toml").write_text(text.replace('kernel = "matmul"\n', 'kernel = "matmul"\nsource = "mm.cu"\n', 1)
                                          .replace("matmul_kp_large", "matmul"))
    assert "when" in dispatch.plan(load_spec(tmp / "w.kernelpro.toml"), (split3, ev(1, 2)),
                                   [(split3, ev(1, 2)), (tiles, ev(3, 1))])


def test_the_split_takes_the_switch_that_makes_every_size_fastest_not_the_first_winner(setup):
    """gemm_chain on the H100 (ms): the naive kernel was fastest at the small size (0.046 against 0.050), the
    3xTF32 kernel at the medium, the tiles at the large (1.62 against 2.65); splitting at the first winner put the
    naive kernel below the medium size and the 3xTF32 kernel above, leaving the tiles out (2.66 ms at the large
    size on the branch). Every switch point is tried now: the 3xTF32 kernel below the large size, the tiles there."""
    tmp, _, k, tiles, split3 = setup
    three = SPEC.replace("large = { M = 70", "medium = { M = 50, N = 60, K = 33 }\nlarge = { M = 70")
    (tmp / "three.kernelpro.toml").write_text(three.replace('kernel = "matmul"\n', 'kernel = "matmul"\nsource = "mm.cu"\n', 1))
    spec = load_spec(tmp / "three.kernelpro.toml")
    root = type(tiles)(source=(tmp / "mm.cu").read_text(), launch=None, kind="root")

    def ev3(s, m, l):
        return Evaluation(ok=True, times_s={"small": s, "medium": m, "large": l})
    seen = [(root, ev3(0.046, 0.848, 12.5)), (split3, ev3(0.050, 0.182, 2.653)), (tiles, ev3(0.076, 0.233, 1.621))]
    got = dispatch.plan(spec, seen[1], seen)
    assert isinstance(got, dispatch.Split), got
    # one switch would put the 3xTF32 kernel below the large size and the tiles there; two switches also keep the
    # naive kernel's 8% at the small size: each size its fastest (gemm_fp32 on an H100, 2026-12-06: the direct kernel
    # at the small size, 128 x 64 tiles at 1024^3, 128 x 128 at 4096^3)
    assert got.runs == [root, split3, tiles] and got.sizes == [["small"], ["medium"], ["large"]]
    assert [got.condition(i) for i in range(3)] == [f"K * M * N < {got.thresholds[0]:g}",
                                                    f"K * M * N >= {got.thresholds[0]:g} and K * M * N < {got.thresholds[1]:g}",
                                                    f"K * M * N >= {got.thresholds[1]:g}"]
    assert 37 * 53 * 29 < got.thresholds[0] < 50 * 60 * 33 < got.thresholds[1] < 70 * 90 * 41
    cand = dispatch.build(spec, got, "matmul")
    names = [st["kernel"] for st in cand.launch["launches"]]
    assert names == ["matmul", "matmul_kp_size1", "matmul_kp_large"]
    new = spec.with_launch(cand.launch, parse_source(cand.source))
    assert [[st.kernel for st in new.steps_at(sz)] for sz in ("small", "medium", "large")] == [[n] for n in names]
    assert all(len(re.findall(rf"__global__[^;{{]*\b{n}\s*\(", cand.source)) == 1 for n in names)
    # without the naive kernel's lead at the small size: one switch, as before
    seen[0] = (root, ev3(0.0495, 0.848, 12.5))
    got = dispatch.plan(spec, seen[1], seen)
    assert got.runs[0] is split3 and got.runs[-1] is tiles and got.sizes[0] == ["small", "medium"] and got.sizes[-1] == ["large"]
    seen[0] = (root, ev3(0.046, 0.848, 12.5))
    # where the tiles lose everywhere, the naive kernel's 8% at the small size alone is still a split
    seen[2] = (tiles, ev3(0.076, 0.233, 2.9))
    got = dispatch.plan(spec, seen[1], seen)
    assert isinstance(got, dispatch.Split) and got.runs[0] is root and got.runs[-1] is split3 and got.sizes[0] == ["small"]
    # and nothing more than 3% faster anywhere: no split
    seen[0] = (root, ev3(0.0495, 0.848, 12.5))
    assert isinstance(dispatch.plan(spec, seen[1], seen), str)


def test_a_side_built_without_the_best_s_flags_stands_in_for_it_where_the_other_side_wins(setup):
    """The transpose on an H100 (2026-12-06): the best was the 32-wide tile with fast math (11.0 / 234.9 us), the
    tile without it 11.1 / 235.1, the 64-wide tile 14.1 / 218.6 (7% faster at 8192^2). One file takes one set of
    flags: the split pairs the two tiles built alike, the 32-wide one standing in for the best at the small size."""
    tmp, spec, k, tiles, split3 = setup
    fast = type(tiles)(source=split3.source, launch=split3.launch, flags=("--use_fast_math",), kind="structural")
    got = dispatch.plan(spec, (fast, ev(11.0, 234.9)), [(fast, ev(11.0, 234.9)), (split3, ev(11.1, 235.1)),
                                                         (tiles, ev(14.1, 218.6))])
    assert isinstance(got, dispatch.Split) and got.runs[0] is split3 and got.runs[-1] is tiles
    # a stand-in slower than the best by more than SAME: no split
    assert isinstance(dispatch.plan(spec, (fast, ev(11.0, 234.9)), [(fast, ev(11.0, 234.9)), (split3, ev(11.5, 235.1)),
                                                                     (tiles, ev(14.1, 218.6))]), str)


def test_a_switch_never_falls_between_sizes_of_one_problem_size_and_each_threshold_parts_its_two(setup):
    """Two sizes of the same problem size (M and N exchanged) cannot be told apart by `when`: no switch between them;
    two sizes 0.4% apart get a threshold strictly above the smaller and at most the larger (three digits gave 1e9
    for both 1000^3 and 1000^2 x 1004)."""
    tmp, _, k, tiles, split3 = setup
    assert dispatch._between(1000 ** 3, 1000 ** 2 * 1004) > 1000 ** 3
    assert dispatch._between(1000 ** 3, 1000 ** 2 * 1004) <= 1000 ** 2 * 1004
    same = SPEC.replace("small = { M = 37, N = 53, K = 29 }\nlarge = { M = 70, N = 90, K = 41 }",
                        "small = { M = 64, N = 32, K = 16 }\nlarge = { M = 32, N = 64, K = 16 }")
    (tmp / "same.kernelpro.toml").write_text(same.replace('kernel = "matmul"\n', 'kernel = "matmul"\nsource = "mm.cu"\n', 1))
    spec = load_spec(tmp / "same.kernelpro.toml")
    assert isinstance(dispatch.plan(spec, (split3, ev(1, 2)), [(split3, ev(1, 2)), (tiles, ev(3, 1))]), str)


def test_a_variant_that_two_runs_take_is_in_the_file_once(setup):
    tmp, _, k, tiles, split3 = setup
    three = SPEC.replace("large = { M = 70", "medium = { M = 50, N = 60, K = 33 }\nlarge = { M = 70")
    (tmp / "t3.kernelpro.toml").write_text(three.replace('kernel = "matmul"\n', 'kernel = "matmul"\nsource = "mm.cu"\n', 1))
    spec = load_spec(tmp / "t3.kernelpro.toml")

    def ev3(s, m, l):
        return Evaluation(ok=True, times_s={"small": s, "medium": m, "large": l})
    seen = [(split3, ev3(1.0, 2.0, 1.0)), (tiles, ev3(2.0, 1.0, 2.0))]
    got = dispatch.plan(spec, seen[0], seen)
    assert isinstance(got, dispatch.Split) and got.runs == [split3, tiles, split3]
    cand = dispatch.build(spec, got, "matmul")
    assert [st["kernel"] for st in cand.launch["launches"]] == ["matmul", "matmul_kp_size1", "matmul"]
    assert "_kp_large" not in cand.source and len(cand.source) < len(split3.source) + len(tiles.source) + 500


def test_a_run_whose_fastest_is_within_the_margin_of_the_best_takes_the_best(setup):
    """gemm_fp32 on the H100 (2026-12-06, µs): the best 26.3 / 91.7 / 3986.9, an unroll variant of it 26.2 / 90.8 /
    3947.9, the direct kernel 19.9 at the small size, the 128 x 128 tiles 3224.7 at the large one. The medium run's
    fastest was the unroll variant, 1% from the best: that refused the three-run split; now the best takes it."""
    tmp, _, k, tiles, split3 = setup
    three = SPEC.replace("large = { M = 70", "medium = { M = 50, N = 60, K = 33 }\nlarge = { M = 70")
    (tmp / "u3.kernelpro.toml").write_text(three.replace('kernel = "matmul"\n', 'kernel = "matmul"\nsource = "mm.cu"\n', 1))
    spec = load_spec(tmp / "u3.kernelpro.toml")
    root = type(tiles)(source=(tmp / "mm.cu").read_text(), launch=None, kind="root")
    unrolled = type(tiles)(source=split3.source + "\n// unrolled\n", launch=split3.launch, kind="local")

    def ev3(s, m, l):
        return Evaluation(ok=True, times_s={"small": s, "medium": m, "large": l})
    best = (split3, ev3(26.3, 91.7, 3986.9))
    seen = [(root, ev3(19.9, 356.8, 21746.8)), best, (unrolled, ev3(26.2, 90.8, 3947.9)), (tiles, ev3(36.7, 126.8, 3224.7))]
    got = dispatch.plan(spec, best, seen)
    assert isinstance(got, dispatch.Split) and got.runs == [root, split3, tiles], got
