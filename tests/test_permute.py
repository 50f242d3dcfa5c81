"""Transposes and permutes (profilers/analysis/copies.py, optimizer/restructure/permute.py): every spelling in
tests/permute/ gets the shared-memory restaging, compiled with nvcc and run in the CPU emulator against numpy
at sizes that are not multiples of the tiles; the negatives (in place, an update, both sides contiguous)
get none, and say why where there is something to say."""
from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

from compile_batch import compile_each
from emu_run import Batch

from kernelpro.optimizer.restructure import api
from kernelpro.profilers.analysis.copies import Copy, Refusal, copy_kernel
from kernelpro.profilers.compile import CompileOptions
from kernelpro.profilers.source import parse_source

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "permute")
GXX = shutil.which("g++")
R, C, B = 37, 45, 3  # rows, columns, batch: no multiple of 8, 16 or 32
CD = "cdiv"

# file -> (kernel, grid, block, {array: (shape, dtype)}, {scalar: value}, output, reference(views))
CASES = {
    "t_literal16": ("transpose16", [f"{CD}(cols, 16)", f"{CD}(rows, 16)"], [16, 16],
                    {"in": ((R, C), np.float32), "out": ((C, R), np.float32)}, {"rows": R, "cols": C}, "out",
                    lambda v: v["in"].T),
    "t_readstrided": ("gather_t", [f"{CD}(cols, 32)", f"{CD}(rows, 8)"], [32, 8],
                      {"out": ((R, C), np.float32), "in": ((C, R), np.float32)}, {"rows": R, "cols": C}, "out",
                      lambda v: v["in"].T),
    "t_batched": ("batched_transpose", [f"{CD}(m, 16)", f"{CD}(n, 16)", "B"], [16, 16],
                  {"dst": ((B, C, R), np.float32), "src": ((B, R, C), np.float32)},
                  {"alpha": 0.5, "n": R, "m": C, "B": B}, "dst", lambda v: 0.5 * np.swapaxes(v["src"], 1, 2)),
    "t_rowptr": ("transpose_rows", [f"{CD}(W, 32)", f"{CD}(H, 4)"], [32, 4],
                 {"out": ((C, R), np.float32), "in": ((R, C), np.float32)}, {"W": C, "H": R}, "out",
                 lambda v: v["in"].T),
    "t_template": ("transpose_tmpl", [f"{CD}(height, 32)", f"{CD}(width, 8)"], [32, 8],
                   {"out": ((R, C), np.float32), "in": ((C, R), np.float32)}, {"height": R, "width": C}, "out",
                   lambda v: v["in"].T),
    "t_permute3": ("swap_last", [f"{CD}(H, 32)", f"{CD}(N, 8)", "B"], [32, 8],
                   {"x": ((B, R, C), np.float32), "y": ((B, C, R), np.float32)}, {"B": B, "N": R, "H": C}, "y",
                   lambda v: np.swapaxes(v["x"], 1, 2)),
    "t_cast": ("transpose_cast", [f"{CD}(C, 32)", f"{CD}(R, 32)"], [32, 32],
               {"out": ((C, R), np.float32), "in": ((R, C), np.float64)}, {"R": R, "C": C}, "out",
               lambda v: v["in"].T),
    "t_nchw_grid": ("nchw_to_nhwc", [f"{CD}(HW, 128)", "Cc", "N"], [128],
                    {"in": ((B, C, R), np.float32), "out": ((B, R, C), np.float32)}, {"N": B, "Cc": C, "HW": R}, "out",
                    lambda v: np.swapaxes(v["in"], 1, 2)),
}
NEGATIVE = {  # file -> what not_applied says (None: nothing, the kernel is not a transpose to fix)
    "n_inplace": "in place",
    "n_update": "is an update",
    "n_coalesced": None,
    "n_rows_step": "steps 4 rows but the block has 8",
}
M = 64  # the blog's kernel has no bounds: a multiple of its tile
# TILE x ROWS loops (several stores per thread): file -> (kernel, grid, block, arrays, scalars, output, reference)
ROWS = {
    "r_blog": ("transposeNaive", ["2", "2"], [32, 8], {"idata": ((M, M), np.float32), "odata": ((M, M), np.float32)},
               {}, "odata", lambda v: v["idata"].T),
    "r_sample": ("transposeNaiveBounds", [f"{CD}(width, 16)", f"{CD}(height, 16)"], [16, 4],
                 {"idata": ((R, C), np.float32), "odata": ((C, R), np.float32)}, {"width": C, "height": R}, "odata",
                 lambda v: v["idata"].T),
    "r_readcols": ("gather_transpose", [f"{CD}(cols, 32)", f"{CD}(rows, 32)"], [32, 4],
                   {"dst": ((R, C), np.float32), "src": ((C, R), np.float32)}, {"rows": R, "cols": C}, "dst",
                   lambda v: v["src"].T),
    "r_double": ("scaled_transpose", [f"{CD}(n, 32)", f"{CD}(m, 32)"], [32, 8],
                 {"in": ((R, C), np.float64), "out": ((C, R), np.float64)}, {"m": R, "n": C, "alpha": 0.5}, "out",
                 lambda v: 0.5 * v["in"].T),
    "r_batched": ("batch_transpose", [f"{CD}(C, 32)", f"{CD}(R, 32)", "B"], [32, 8],
                  {"a": ((B, R, C), np.float32), "at": ((B, C, R), np.float32)}, {"R": R, "C": C, "B": B}, "at",
                  lambda v: np.swapaxes(v["a"], 1, 2)),
}


def _ev(e, env):
    return int(eval(str(e).replace("/", "//"), {"cdiv": lambda a, b: -(-a // b)}, dict(env)))


def _ctx(name, text, kernel, grid, block):
    k = parse_source(text).kernel(kernel)
    scalars = {p.name: p.name for p in k.params if not p.is_pointer} if k is not None else {}
    return api.Context(kernel=kernel, path=os.path.join(HERE, f"{name}.cu"), launch={"grid": grid, "block": block},
                       base_launch={"grid": grid, "block": block}, size_env={},
                       answers_present=("uncoalesced-access",), scalar_params=scalars)


def test_the_analysis_reads_which_side_is_contiguous_along_which_thread_dimension():
    got = {}
    for name in CASES:
        src = parse_source(open(os.path.join(HERE, f"{name}.cu")).read())
        c = copy_kernel(src, src.kernels[0])
        if name == "t_nchw_grid":  # the channel on blockIdx.y: a transpose only once the plan makes it a thread row
            assert isinstance(c, Refusal) or not c.transpose
            continue
        assert isinstance(c, Copy), (name, c)
        got[name] = (c.load_along, c.store_along, c.transpose)
    assert got["t_literal16"] == ("x", "y", True)
    assert got["t_readstrided"] == ("y", "x", True)
    assert got["t_template"] == ("x", "y", True)  # x on the rows: in[col * height + row] along x
    assert all(t for _, _, t in got.values())
    src = parse_source(open(os.path.join(HERE, "n_coalesced.cu")).read())
    c = copy_kernel(src, src.kernels[0])
    assert isinstance(c, Copy) and (c.load_along, c.store_along, c.transpose) == ("x", "x", False)
    for name in ("n_inplace", "n_update"):
        src = parse_source(open(os.path.join(HERE, f"{name}.cu")).read())
        assert isinstance(copy_kernel(src, src.kernels[0]), Refusal)


@pytest.mark.parametrize("name", sorted(NEGATIVE))
def test_no_restaging_where_it_would_be_wrong_or_useless(name):
    text = open(os.path.join(HERE, f"{name}.cu")).read()
    k = parse_source(text).kernels[0]
    plans, why = api.plans(text, _ctx(name, text, k.name, ["cdiv(n, 32)", "cdiv(n, 8)"], [32, 8]))
    assert "transpose-tile" not in [p.name for p in plans]
    said = [w for w in why if w.startswith("permute:")]
    if NEGATIVE[name] is None:
        assert not said, said
    else:
        assert said and NEGATIVE[name] in said[0], why


def test_an_index_strided_both_ways_says_so():
    text = """__global__ void k(float* o, const float* i, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < n && y < n) o[y * n + x] = i[(x * n + y) * 2];
}"""
    plans, why = api.plans(text, _ctx("strided", text, "k", ["cdiv(n, 32)", "cdiv(n, 8)"], [32, 8]))
    assert not any(p.name == "transpose-tile" for p in plans)
    assert any(w.startswith("permute:") and "contiguous along neither" in w for w in why), why


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
@pytest.mark.parametrize("name", sorted(CASES))
def test_each_restaging_compiles_and_moves_every_element(name, tmp_path):
    kernel, grid, block, arrays, scalars, out, ref = CASES[name]
    text = open(os.path.join(HERE, f"{name}.cu")).read()
    k = parse_source(text).kernel(kernel)
    ctx = _ctx(name, text, kernel, grid, block)
    plans, why = api.plans(text, ctx)
    plan = next((p for p in plans if p.name == "transpose-tile"), None)
    assert plan is not None, why
    assert plan.space[-1] == {"tile": 0}  # the launch's own block as the tile is always offered
    runs = [("as written", text, ctx.launch)]
    for knobs in plan.space:
        c = plan.build(knobs)
        assert c.kind == "structural" and "shared-memory tile" in c.description
        runs.append((c.description, c.source, c.launch))
    problems = compile_each(ctx.path, [(kernel, src, ()) for _, src, _ in runs[1:]], CompileOptions(arch="sm_90"))
    for (what, _, _), problem in zip(runs[1:], problems):
        assert problem is None, f"{what}:\n" + "\n".join(problem)
    emu_name = kernel + ("<float>" if k.is_template else "")
    batch = Batch([(src, emu_name) for _, src, _ in runs], str(tmp_path))
    idx = [p.name for p in k.params].index(out)
    for i, (what, _, launch) in enumerate(runs):
        rng = np.random.default_rng(i)
        args, views = [], {}
        for p in k.params:
            if p.name in arrays:
                shape, dtype = arrays[p.name]
                x = rng.standard_normal(shape).astype(dtype)
                views[p.name] = x
                args.append(x.reshape(-1).copy())
            else:
                args.append(scalars[p.name])
        got = batch.run(i, args, [_ev(g, scalars) for g in launch["grid"]], [_ev(b, scalars) for b in launch["block"]])
        want = np.asarray(ref(views), np.float32).reshape(-1)
        assert np.array_equal(got[idx], want), f"{what}: {np.sum(got[idx] != want)} of {want.size} elements differ"


def test_propose_only_puts_the_restaging_first_for_the_projects_own_transpose():
    import json
    import subprocess
    import sys

    ex = os.path.join(os.path.dirname(HERE), "..", "examples", "a_naive_transpose.cu")
    r = subprocess.run([sys.executable, "-m", "kernelpro.optimizer", "optimize", ex, "--kernel", "transpose",
                        "--propose-only", "--json"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    cands = json.loads(r.stdout)["candidates"]
    first = cands[0]
    assert (first["origin"], first["kind"]) == ("builtin:transpose-tile", "structural"), [c["origin"] for c in cands]
    assert "shared-memory tile" in first["description"]


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_a_loop_over_extra_rows_folds_into_the_tile(tmp_path):
    """The TILE x ROWS transposes: the loop read as extra rows, the block kept; all compiled in one nvcc call and
    emulated in one program, against numpy."""
    runs = []
    for name, (kernel, grid, block, arrays, scalars, out, ref) in sorted(ROWS.items()):
        text = open(os.path.join(HERE, f"{name}.cu")).read()
        plans, why = api.plans(text, _ctx(name, text, kernel, grid, block))
        plan = next((p for p in plans if p.name == "transpose-tile"), None)
        assert plan is not None, (name, why)
        c = plan.build(plan.space[0])
        assert c.launch["block"] == block and "loop over rows folded" in c.description, (name, c.description)
        runs.append((name, text, c.source, c.launch))
    problems = compile_each(os.path.join(HERE, "r_blog.cu"), [(ROWS[n][0], src, ()) for n, _, src, _ in runs],
                            CompileOptions(arch="sm_90"))
    assert not any(problems), [(r[0], p) for r, p in zip(runs, problems) if p]
    batch = Batch([(t, ROWS[n][0]) for n, t, _, _ in runs] + [(s, ROWS[n][0]) for n, _, s, _ in runs], str(tmp_path))
    for i, (name, _, _, launch) in enumerate(runs):
        kernel, grid, block, arrays, scalars, out, ref = ROWS[name]
        k = parse_source(runs[i][1]).kernel(kernel)
        for j, (g, b) in enumerate([(grid, block), (launch["grid"], launch["block"])]):
            rng = np.random.default_rng(3)
            views = {p: rng.standard_normal(sh).astype(dt) for p, (sh, dt) in arrays.items()}
            args = [views[p.name].reshape(-1).copy() if p.name in views else scalars[p.name] for p in k.params]
            got = batch.run(i + j * len(runs), args, [_ev(x, scalars) for x in g], b)
            want = np.asarray(ref(views), arrays[out][1]).reshape(-1)
            assert np.array_equal(got[[p.name for p in k.params].index(out)], want), (name, j)
