"""Permutes on a 2-D or 3-D grid whose y and z are values (a batch, a token) and whose x index runs along the
contiguous last dimension of both sides (flatview.grid_to_flat, api._grid_gather_plans): the grid folded into
one flat index, then the gather's packs (16 bytes where the row allows, element by element otherwise). Each
spelling's candidate is compiled with nvcc in one call and run in the CPU emulator against numpy, with the
contiguous extent a multiple of 4 and not."""
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

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "permute")
SUITE = os.path.join(os.path.dirname(HERE), "..", "benchmarks", "suite")
GXX = shutil.which("g++")

# name -> (path, kernel, grid, block, input, output, shapes(sizes), reference)
CASES = {
    "suite_naive_3d": (os.path.join(SUITE, "permute4d", "naive_3d.cu"), "permute4d", ["cdiv(H * d, 128)", "N", "B"],
                       [128], "inp", "out", lambda s: ((s["B"], s["N"], s["H"], s["d"]), np.float32),
                       lambda a: a.transpose(0, 2, 1, 3)),
    "g_split_heads3d": (os.path.join(HERE, "g_split_heads3d.cu"), "split_heads", ["cdiv(NH * hs, 64)", "T", "B"],
                        [64], "x", "y", lambda s: ((s["B"], s["T"], s["NH"], s["hs"]), np.float32),
                        lambda a: a.transpose(0, 2, 1, 3)),
    "g_merge_heads2d": (os.path.join(HERE, "g_merge_heads2d.cu"), "merge_heads", ["cdiv(NH * hs, 128)", "B * T"],
                        [128], "in", "out", lambda s: ((s["B"], s["NH"], s["T"], s["hs"]), np.float64),
                        lambda a: a.transpose(0, 2, 1, 3)),
}
SIZES = [{"B": 2, "N": 5, "T": 5, "H": 3, "NH": 3, "d": 16, "hs": 16},
         {"B": 2, "N": 3, "T": 3, "H": 5, "NH": 5, "d": 13, "hs": 13}]


def _ev(e, env):
    return int(eval(str(e).replace("/", "//"), {"cdiv": lambda a, b: -(-a // b)}, dict(env)))


@pytest.fixture(scope="module")
def built():
    out = {}
    for name, (path, kernel, grid, block, *_rest) in CASES.items():
        text = open(path).read()
        k = parse_source(text).kernel(kernel)
        launch = {"grid": grid, "block": block}
        ctx = api.Context(kernel=kernel, path=path, launch=launch, base_launch=dict(launch), size_env={},
                          scalar_params={p.name: p.name for p in k.params if not p.is_pointer})
        plans, why = api.plans(text, ctx)
        p = next((p for p in plans if p.name == "gather"), None)
        out[name] = (k, None if p is None else p.build(p.space[0]), why)
    return out


def test_each_spelling_gets_packs(built):
    assert not {n: w for n, (_, c, w) in built.items() if c is None}
    for name, (_, c, _) in built.items():
        assert "folded into one flat index" in c.description and len(c.launch["grid"]) == 1, name
        assert dict(c.knobs)["vec"] == 16 // np.dtype(CASES[name][6](SIZES[0])[1]).itemsize, name


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_every_pack_compiles_and_permutes(built, tmp_path):
    names = sorted(CASES)
    problems = compile_each(CASES[names[0]][0], [(CASES[n][1], built[n][1].source, ()) for n in names],
                            CompileOptions(arch="sm_90"))
    assert not any(problems), problems
    batch = Batch([(built[n][1].source, CASES[n][1]) for n in names], str(tmp_path))
    for i, name in enumerate(names):
        _, kernel, _, _, inp, out, shape, ref = CASES[name]
        k, c, _ = built[name]
        for s in SIZES:
            shp, dt = shape(s)
            x = np.random.default_rng(3).standard_normal(shp).astype(dt)
            args = [x.reshape(-1) if p.name == inp else np.full(x.size, np.nan, dt) if p.name == out else s[p.name]
                    for p in k.params]
            got = batch.run(i, args, [_ev(g, s) for g in c.launch["grid"]], c.launch["block"])
            assert np.array_equal(got[[p.name for p in k.params].index(out)], ref(x).reshape(-1)), (name, s)
