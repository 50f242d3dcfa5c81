"""x and y exchanged (`coalesce-xy` in optimizer/restructure/api.py): a two-dimensional kernel whose
accesses are contiguous along threadIdx.y gets its thread indices exchanged (and, where it reads
blockDim, blocks of 32 lanes along the contiguous dimension); each candidate computes what the kernel
as written computes in the CPU emulator, and the file's own launch is rewritten so that it compiles."""
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

GXX = shutil.which("g++")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
H, W = 37, 45

ADD = """// element-wise on a [row][col] nest read as (x, y): the row on the lanes
__global__ void add2d(float* c, const float* a, const float* b, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    int s = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && s < cols) c[r * cols + s] = a[r * cols + s] + 2.0f * b[r * cols + s];
}
void run(float* c, const float* a, const float* b, int rows, int cols) {
    dim3 block(16, 16), grid((rows + 15) / 16, (cols + 15) / 16);
    add2d<<<grid, block>>>(c, a, b, rows, cols);
}
"""
LITERAL = """// a literal tile: the row from blockIdx.x * 8
__global__ void scale2d(float* y, const float* x, int n, int m) {
    int i = blockIdx.x * 8 + threadIdx.x;
    int j = blockIdx.y * 32 + threadIdx.y;
    if (i < n && j < m) y[i * m + j] = 3.0f * x[i * m + j];
}
"""
STENCIL = open(os.path.join(ROOT, "benchmarks", "suite", "stencil2d", "naive_rowx.cu")).read()

# name -> (source, kernel, grid, block, {array: shape}, scalars, output, reference)
CASES = {
    "add2d": (ADD, "add2d", ["cdiv(rows, 16)", "cdiv(cols, 16)"], [16, 16], {"c": (H, W), "a": (H, W), "b": (H, W)},
              {"rows": H, "cols": W}, "c", lambda v: v["a"] + 2 * v["b"]),
    "scale2d": (LITERAL, "scale2d", ["cdiv(n, 8)", "cdiv(m, 32)"], [8, 32], {"y": (H, W), "x": (H, W)},
                {"n": H, "m": W}, "y", lambda v: 3 * v["x"]),
    "stencil": (STENCIL, "stencil2d", ["cdiv(H, 32)", "cdiv(W, 8)"], [32, 8], {"out": (H, W), "inp": (H, W)},
                {"H": H, "W": W}, "out", None),
}


def _ev(e, env):
    return int(eval(str(e).replace("/", "//"), {"cdiv": lambda a, b: -(-a // b)}, dict(env)))


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
@pytest.mark.parametrize("name", sorted(CASES))
def test_x_and_y_exchanged_compute_the_same(name, tmp_path):
    text, kernel, grid, block, arrays, scalars, out, ref = CASES[name]
    path = str(tmp_path / f"{name}.cu")
    ctx = api.Context(kernel=kernel, path=path, launch={"grid": grid, "block": block},
                      base_launch={"grid": grid, "block": block}, size_env={})
    plans, why = api.plans(text, ctx)
    plan = next((p for p in plans if p.name == "coalesce-xy"), None)
    assert plan is not None, why
    assert ({"reblock": 1} in plan.space) == (name != "scale2d")  # a literal tile keeps its block's shape
    runs = [("as written", text, ctx.launch)] + [(c.description, c.source, c.launch)
                                                 for c in map(plan.build, plan.space)]
    assert runs[1][2]["block"][0] >= 16  # the first setting: 16 or 32 lanes along the contiguous dimension
    problems = compile_each(path, [(kernel, src, ()) for _, src, _ in runs[1:]], CompileOptions(arch="sm_90"))
    for (what, _, _), problem in zip(runs[1:], problems):
        assert problem is None, f"{what}:\n" + "\n".join(problem)
    for _, src, _ in runs[1:]:  # the file's own launch follows the new grid and block
        assert "<<<" not in src or "dim3(32," in src or "kp_swap_xy(" in src
    # the emulator runs device code only: the host function goes
    batch = Batch([(src.split("\nvoid run(")[0], kernel) for _, src, _ in runs], str(tmp_path))
    k = parse_source(text).kernel(kernel)
    idx = [p.name for p in k.params].index(out)
    results = []
    for i, (what, _, launch) in enumerate(runs):
        rng = np.random.default_rng(3)
        args, views = [], {}
        for p in k.params:
            if p.name in arrays:
                x = rng.standard_normal(arrays[p.name]).astype(np.float32)
                views[p.name] = x
                args.append(x.reshape(-1).copy())
            else:
                args.append(scalars[p.name])
        got = batch.run(i, args, [_ev(g, scalars) for g in launch["grid"]], [_ev(b, scalars) for b in launch["block"]])
        results.append(got[idx])
        if ref is not None:
            assert np.allclose(got[idx], np.asarray(ref(views)).reshape(-1), rtol=1e-6), what
    for (what, _, _), r in zip(runs[1:], results[1:]):
        assert np.array_equal(r, results[0]), what


def test_a_kernel_already_contiguous_along_x_gets_no_exchange():
    text = ADD.replace("c[r * cols + s] = a[r * cols + s] + 2.0f * b[r * cols + s]",
                       "c[s * rows + r] = a[s * rows + r] + 2.0f * b[s * rows + r]")
    ctx = api.Context(kernel="add2d", path="/tmp/add.cu", launch={"grid": ["1", "1"], "block": [16, 16]},
                      base_launch=None, size_env={})
    plans, _ = api.plans(text, ctx)
    assert "coalesce-xy" not in [p.name for p in plans]
