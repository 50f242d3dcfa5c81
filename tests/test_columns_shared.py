"""Column reductions that read more than the column (tests/columns/): a vector every column shares
(`y[j] = sum_i A[i*N + j] * x[i]`, a column matrix-vector product) and the column's own values
(`(d[i*M + j] - mean[j])^2`). They get the column split, never the row rewrite along the vector (which
would make every warp read A down a column), and every candidate computes the reference in the CPU
emulator at sizes off the block and pack sizes."""
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

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "columns")
GXX = shutil.which("g++")
R, C = 67, 45  # rows, columns: off 8, 32, 4 and the cluster

# file -> (grid, block, {array: shape}, {scalar: value}, output, reference)
CASES = {
    "colmv_for": (["cdiv(N, 64)"], [64], {"A": (R, C), "x": (R,), "y": (C,)}, {"M": R, "N": C}, "y",
                  lambda v: v["A"].T @ v["x"]),
    "colmv_while": (["cdiv(cols, 128)"], [128], {"y": (C,), "A": (R, C), "x": (R,)}, {"rows": R, "cols": C}, "y",
                    lambda v: v["A"].T @ v["x"]),
    "colmv_inplace": (["cdiv(m, 32)"], [32], {"a": (R, C), "v": (R,), "out": (C,)},
                      {"n": R, "m": C, "alpha": 0.5}, "out", lambda v: 0.5 * (v["a"].T @ v["v"])),
    "colvar": (["cdiv(M, 256)"], [256], {"d": (R, C), "mean": (C,), "var": (C,)}, {"N": R, "M": C}, "var",
               lambda v: ((v["d"] - v["mean"]) ** 2).sum(0) / R),
    "colmax_w": (["cdiv(C, 64)"], [64], {"x": (R, C), "w": (R,), "out": (C,)}, {"R": R, "C": C}, "out",
                 lambda v: (v["w"][:, None] * v["x"]).max(0)),
}


def _ev(e, env):
    return int(eval(str(e).replace("/", "//"), {"cdiv": lambda a, b: -(-a // b)}, dict(env)))


def _plans(name):
    grid, block, arrays, scalars, out, ref = CASES[name]
    text = open(os.path.join(HERE, f"{name}.cu")).read()
    k = parse_source(text).kernels[0]
    env = {s: v for s, v in scalars.items() if isinstance(v, int)}
    ctx = api.Context(kernel=k.name, path=os.path.join(HERE, f"{name}.cu"), launch={"grid": grid, "block": block},
                      base_launch={"grid": grid, "block": block}, size_env={"small": env})
    return text, k, ctx, api.plans(text, ctx)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_column_split_and_never_the_row_rewrite_along_the_vector(name):
    _, _, _, (plans, why) = _plans(name)
    names = [p.name for p in plans]
    assert "column" in names, why
    assert not any(n.startswith("row") for n in names), names


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
@pytest.mark.parametrize("name", sorted(CASES))
def test_each_column_split_computes_the_reference(name, tmp_path):
    grid, block, arrays, scalars, out, ref = CASES[name]
    text, k, ctx, (plans, why) = _plans(name)
    plan = next(p for p in plans if p.name == "column")
    runs = [("as written", text, ctx.launch)]
    tried = plan.space[:1] + [s for s in plan.space if s.get("vec") == 1][:1]  # packed, and one column a thread
    clusters = [plan.build(knobs) for knobs in tried]
    for knobs in tried:  # the emulator runs one block at a time: the cluster's forms are compiled, run on the GPU
        c = plan.build({**knobs, "cluster": 1})
        runs.append((c.description, c.source, c.launch))
    problems = compile_each(ctx.path, [(k.name, src, ()) for _, src, _ in runs[1:]]
                            + [(k.name, c.source, ()) for c in clusters], CompileOptions(arch="sm_90"))
    for what, problem in zip([w for w, _, _ in runs[1:]] + [c.description for c in clusters], problems):
        assert problem is None, f"{what}:\n" + "\n".join(problem)
    batch = Batch([(src, k.name) for _, src, _ in runs], str(tmp_path))
    idx = [p.name for p in k.params].index(out)
    env = {s: v for s, v in scalars.items() if isinstance(v, int)}
    for i, (what, _, launch) in enumerate(runs):
        rng = np.random.default_rng(7)
        args, views = [], {}
        for p in k.params:
            if p.name in arrays:
                x = rng.standard_normal(arrays[p.name]).astype(np.float32)
                views[p.name] = x.astype(np.float64)
                args.append(x.reshape(-1).copy())
            else:
                args.append(scalars[p.name])
        got = batch.run(i, args, [_ev(g, env) for g in launch["grid"]], [_ev(b, env) for b in launch["block"]])
        want = ref(views).reshape(-1)
        assert np.allclose(got[idx], want, rtol=1e-4, atol=1e-4), \
            f"{what}: max error {np.max(np.abs(got[idx] - want))}"
