"""One thread reducing a strided column (tests/colreduce/): with the column from the thread index it is the
column shape already; with a block per column (or per row of a column-major matrix, or columns strided over
the grid's blocks) and its first thread walking it, deteam.deteam_rows lifts it to one thread per column
first (`if (threadIdx.x == 0 && col < N)` too), then the column split. The first setting and one column a
thread (without the cluster, which the emulator's one block at a time cannot run) compute the reference in the
CPU emulator at sizes off the block; the cluster forms compile."""
from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

from compile_batch import compile_each
from emu_run import Batch

from kernelpro.optimizer.restructure import api
from kernelpro.profilers.compile import CompileOptions
from kernelpro.profilers.source import parse_source

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "colreduce")
GXX = shutil.which("g++")
R, C = 67, 45

# file -> (grid, block, {array: shape}, {scalar: value}, output, reference, words in the description)
CASES = {
    "colsum_thread": (["cdiv(cols, 128)"], [128], {"a": (R, C), "out": (C,)}, {"rows": R, "cols": C}, "out",
                      lambda v: v["a"].sum(0), ""),
    "colsum_block": (["N"], [32], {"A": (R, C), "sums": (C,)}, {"M": R, "N": C}, "sums",
                     lambda v: v["A"].sum(0), "first thread walks it"),
    "colmajor_rowsum": (["m"], [64], {"A": (C, R), "y": (R,)}, {"m": R, "n": C, "lda": R}, "y",
                        lambda v: v["A"].sum(0), "first thread walks it"),
    "colmax_blockgs": (["16"], [32], {"x": (R, C), "out": (C,)}, {"R": R, "C": C}, "out",
                       lambda v: np.abs(v["x"]).max(0), "first thread walks it"),
    "colmajor_rowsum_thread": (["cdiv(M, 128)"], [128], {"A": (C, R), "y": (R,)}, {"M": R, "N": C}, "y",
                               lambda v: v["A"].sum(0), ""),
}


def _ev(e, env):
    return int(eval(str(e).replace("/", "//"), {"cdiv": lambda a, b: -(-a // b)}, dict(env)))


@pytest.fixture(scope="module")
def built():
    out, items = {}, []
    for name, (grid, block, _, scalars, _, _, _) in CASES.items():
        path = os.path.join(HERE, f"{name}.cu")
        text = open(path).read()
        k = parse_source(text).kernels[0]
        launch = {"grid": grid, "block": block}
        ctx = api.Context(kernel=k.name, path=path, launch=launch, base_launch=launch, size_env={"small": scalars},
                          scalar_params={p.name: p.name for p in k.params if not p.is_pointer})
        plans, why = api.plans(text, ctx)
        plan = next((p for p in plans if p.name == "column"), None)
        assert plan is not None, (name, why)
        tried = plan.space[:1] + [s for s in plan.space if s.get("vec") == 1][:1]
        runs = [("as written", text, launch)] + [(str(s), c.source, c.launch) for s in tried
                                                 for c in [plan.build({**s, "cluster": 1})]]
        out[name] = (k, plan.build(plan.space[0]), runs)
        items += [(k.name, src, ()) for _, src, _ in runs[1:]] + [(k.name, out[name][1].source, ())]
    problems = compile_each(os.path.join(HERE, "colsum_block.cu"), items, CompileOptions(arch="sm_90"))
    bad = [p for p in problems if p is not None]
    assert not bad, "\n".join(bad[0])
    return out


def test_a_block_per_column_is_lifted_then_split(built):
    for name, (k, first, _) in built.items():
        words = CASES[name][6]
        assert words in first.description, (name, first.description)
        assert "threadIdx.x == 0" not in first.source, name


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_each_lift_computes_the_reference(built, tmp_path):
    flat = [(name, what, src, launch) for name, (_, _, runs) in built.items() for what, src, launch in runs]
    batch = Batch([(src, built[name][0].name) for name, _, src, _ in flat], str(tmp_path))
    for i, (name, what, _, launch) in enumerate(flat):
        grid, block, arrays, scalars, out, ref, _ = CASES[name]
        k = built[name][0]
        rng = np.random.default_rng(11)
        args, views = [], {}
        for p in k.params:
            if p.name in arrays:
                x = rng.standard_normal(arrays[p.name]).astype(np.float64 if "double" in p.base_type else np.float32)
                views[p.name] = x.astype(np.float64)
                args.append(x.reshape(-1).copy())
            else:
                args.append(scalars[p.name])
        got = batch.run(i, args, [_ev(g, scalars) for g in launch["grid"]], [_ev(b, scalars) for b in launch["block"]])
        want = ref(views).reshape(-1)
        idx = [p.name for p in k.params].index(out)
        assert np.allclose(got[idx], want, rtol=1e-4, atol=1e-4), f"{name} {what}: {np.max(np.abs(got[idx] - want))}"
