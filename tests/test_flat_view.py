"""Flat indices seen as rows (profilers/analysis/digits.py, optimizer/restructure/flatview.py, api.flat_plans):
the spellings of tests/flat/ (one-dimensional launches whose index is split with `/` and `%`, through a
reassigned remainder or the remainder written out) get the tile plans of 2-D kernels on a 2-D grid (and 3-D
blocks whose z is only blockIdx.z * blockDim.z + threadIdx.z, blocks one plane thick), or a
gather's packs where the digits of digits are read from the index itself; every candidate is compiled with
nvcc in one call and run in the CPU emulator, all in one program, at sizes off every tile, against numpy
(copies) or the kernel as written (stencils: its boundary left as it was). An in-place sweep, a buffer written
through a pointer into itself and a row length in constant memory get no plan and say why."""
from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

from compile_batch import compile_each
from emu_run import Batch

from kernelpro.optimizer.restructure import api
from kernelpro.profilers.analysis.digits import FlatIndex, flat_index
from kernelpro.profilers.compile import CompileOptions
from kernelpro.profilers.source import parse_source

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "flat")
GXX = shutil.which("g++")
H, W = 19, 37  # rows, columns: off every tile
F4, D3 = np.float32, np.float64
B_, N_, NH_ = 2, 5, 3

# file -> (kernel, plan, grid total, {array: (shape, dtype)}, scalars, output, numpy reference or None (as written))
CASES = {
    "jacobi2d_flat": ("jacobi2d_step", "stencil-tile", "n * n", {"A": ((W, W), F4), "B": ((W, W), F4)}, {"n": W},
                      "B", None),
    "sobel_flat": ("sobel", "stencil-tile", "width * height", {"img": ((H, W), F4), "mag": ((H, W), F4)},
                   {"width": W, "height": H}, "mag", None),
    "blur_flat": ("box_blur", "stencil-tile", "w * h", {"out": ((H, W), F4), "in": ((H, W), F4)}, {"w": W, "h": H},
                  "out", None),
    "heat3d_flat": ("heat3d", "stencil-tile", "nx * ny * nz", {"T": ((5, 11, 13), D3), "Tn": ((5, 11, 13), D3)},
                    {"nx": 13, "ny": 11, "nz": 5, "alpha": 0.1}, "Tn", None),
    "diffuse_flat": ("diffuse", "stencil-tile", "N * N",
                     {"out": ((H, H), F4), "u": ((H, H), F4), "kappa": ((H, H), F4)}, {"N": H, "dt": 0.05}, "out",
                     None),
    "transpose_out_flat": ("transpose_naive", "transpose-tile", "width * height",
                           {"odata": ((W, H), F4), "idata": ((H, W), F4)}, {"width": W, "height": H}, "odata",
                           lambda v: v["idata"].T),
    "transpose_ldg_flat": ("mat_transpose", "transpose-tile", "M * N", {"B": ((W, H), D3), "A": ((H, W), D3)},
                           {"M": H, "N": W}, "B", lambda v: v["A"].T),
    "permute_llmc": ("permute_kernel", "gather", "B * NH * N * d",
                     {"q": ((B_, NH_, N_, 12), F4), "inp": ((B_, N_, 3, NH_, 12), F4)},
                     {"B": B_, "N": N_, "NH": NH_, "d": 12}, "q", lambda v: v["inp"][:, :, 0].transpose(0, 2, 1, 3)),
    "unpermute_llmc": ("unpermute_kernel", "gather", "B * NH * N * d",
                       {"inp": ((B_, NH_, N_, 13), F4), "out": ((B_, N_, NH_, 13), F4)},
                       {"B": B_, "N": N_, "NH": NH_, "d": 13}, "out", lambda v: v["inp"].transpose(0, 2, 1, 3)),
    # three dimensions of threads, z only as blockIdx.z * blockDim.z + threadIdx.z: blocks one plane thick
    "lap3d_threads": ("laplacian3d", "stencil-tile", (["cdiv(nx, 8)", "cdiv(ny, 8)", "cdiv(nz, 4)"], [8, 8, 4]),
                      {"lap": ((5, 11, 13), F4), "f": ((5, 11, 13), F4)}, {"nx": 13, "ny": 11, "nz": 5, "inv_h2": 0.5},
                      "lap", None),
    "wave3d_threads": ("wave_step", "stencil-tile", (["cdiv(N, 4)", "cdiv(N, 4)", "cdiv(N, 4)"], [4, 4, 4]),
                       {"u_next": ((7, 7, 7), D3), "u": ((7, 7, 7), D3), "u_prev": ((7, 7, 7), D3)},
                       {"N": 7, "c2": 0.1}, "u_next", None),
}
NEGATIVE = {  # file -> (kernel, grid total, what not_applied says)
    "n_inplace_flat": ("relax", "n * n", "reads and writes u"),
    "n_alias_flat": ("step", "nx * ny", "reads and writes buf"),
    "n_constwidth_flat": ("smooth", "total", "not made of the kernel's parameters"),
}
BLOCK = 128


def _ev(e, env):
    return int(eval(str(e).replace("/", "//"), {"cdiv": lambda a, b: -(-a // b)}, dict(env)))


def _launch(total):
    """A 1-D launch over `total` threads, or (grid, block) as given."""
    if isinstance(total, tuple):
        return {"grid": total[0], "block": total[1]}
    return {"grid": [f"cdiv({total}, {BLOCK})"], "block": [BLOCK]}


def _plans(name, kernel, total):
    path = os.path.join(HERE, f"{name}.cu")
    text = open(path).read()
    k = parse_source(text).kernel(kernel)
    launch = _launch(total)
    ctx = api.Context(kernel=kernel, path=path, launch=launch, base_launch=dict(launch), size_env={},
                      scalar_params={p.name: p.name for p in k.params if not p.is_pointer},
                      answers_present=("uncoalesced-access",))
    return path, text, k, api.plans(text, ctx)


@pytest.fixture(scope="module")
def built():
    out = {}
    for name, (kernel, plan, total, *_rest) in CASES.items():
        path, text, k, (plans, why) = _plans(name, kernel, total)
        p = next((p for p in plans if p.name == plan), None)
        out[name] = (path, text, k, None if p is None else p.build(p.space[0]), why)
    return out


def test_the_digits_of_a_flat_index_and_its_row_length():
    got = {}
    for name in ("jacobi2d_flat", "sobel_flat", "heat3d_flat", "permute_llmc", "transpose_ldg_flat"):
        src = parse_source(open(os.path.join(HERE, f"{name}.cu")).read())
        fi = flat_index(src, src.kernels[0])
        assert isinstance(fi, FlatIndex), (name, fi)
        got[name] = (fi.name, fi.row_c, sorted(fi.view(d, "x", "y") for _, d in fi.uses))
    assert got["jacobi2d_flat"] == ("tid", "n", ["x", "y"])
    assert got["sobel_flat"] == ("pixel", "width", ["x", "y"])  # pixel - y * width: the remainder written out
    # k = id / (nx * ny), then j and i from the reassigned remainder r = id % (nx * ny)
    assert got["heat3d_flat"] == ("id", "nx", ["((y % (ny)) * (nx) + x)", "(y % (ny))", "(y / (ny))", "x"])
    assert got["permute_llmc"][1] == "d" and "((y / (N)) % (NH))" in got["permute_llmc"][2]
    assert got["transpose_ldg_flat"][1:] == ("N", ["x", "y"])


def test_longer_rows_put_the_low_digits_in_the_column():
    """NCHW -> NHWC: rows of W, of H * W (a batch's whole C x HW matrix transposed: c on the row, h and w from the
    column) and of C * H * W are all views no digit cuts; flat_plans tries them shortest first."""
    text = """__global__ void nchw2nhwc(const float* in, float* out, int N, int C, int H, int W) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N * C * H * W) return;
    int w = i % W, h = (i / W) % H, c = (i / (W * H)) % C, n = i / (W * H * C);
    out[((n * H + h) * W + w) * C + c] = in[i];
}"""
    src = parse_source(text)
    fi = flat_index(src, src.kernels[0])
    assert fi.row_c == "W" and len(fi.rows) == 3
    fi.row = fi.rows[1]
    assert fi.row_c == "H * W"
    assert sorted(fi.view(d, "x", "y") for _, d in fi.uses) == ["((x / (W)) % (H))", "(x % (W))", "(y % (C))",
                                                                "(y / (C))"]


def test_each_spelling_gets_its_plan(built):
    missing = {n: built[n][4] for n in CASES if built[n][3] is None}
    assert not missing, missing
    for name, (path, text, k, c, _) in built.items():
        assert c.kind == "structural" and c.origin == f"builtin:{CASES[name][1]}", (name, c.origin)
        if isinstance(CASES[name][2], tuple):
            assert c.launch["block"] == [32, 8, 1] and "z from blockIdx.z" in c.description, (name, c.description)
        elif CASES[name][1] != "gather":
            assert len(c.launch["block"]) == 2 and "read as rows of" in c.description, (name, c.description)


@pytest.mark.parametrize("name", sorted(NEGATIVE))
def test_no_plan_and_a_reason(name):
    kernel, total, why = NEGATIVE[name]
    _, _, _, (plans, said) = _plans(name, kernel, total)
    assert not [p.name for p in plans if p.name in ("stencil-tile", "transpose-tile", "coalesce-xy")], said
    assert any(why in w for w in said), said


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_every_candidate_compiles_and_computes_what_the_kernel_computes(built, tmp_path):
    names = sorted(CASES)
    problems = compile_each(built[names[0]][0], [(CASES[n][0], built[n][3].source, ()) for n in names],
                            CompileOptions(arch="sm_90"))
    assert not [n for n, p in zip(names, problems) if p], [(n, p) for n, p in zip(names, problems) if p]
    items = [(built[n][1], CASES[n][0]) for n in names] + [(built[n][3].source, CASES[n][0]) for n in names]
    batch = Batch(items, str(tmp_path))
    for i, name in enumerate(names):
        kernel, _, total, arrays, scalars, out, ref = CASES[name]
        path, text, k, c, _ = built[name]
        idx = [p.name for p in k.params].index(out)
        got = []
        old = _launch(total)
        for j, (grid, block) in enumerate([([_ev(g, scalars) for g in old["grid"]], old["block"]),
                                           ([_ev(g, scalars) for g in c.launch["grid"]], c.launch["block"])]):
            rng = np.random.default_rng(5)
            args = [rng.standard_normal(arrays[p.name][0]).astype(arrays[p.name][1]) if p.name in arrays
                    else scalars[p.name] for p in k.params]
            views = {p.name: a for p, a in zip(k.params, args) if p.name in arrays}
            want = ref(views) if ref is not None else None
            got.append(batch.run(i + j * len(names), args, grid, block)[idx])
            if want is not None:
                assert np.array_equal(got[-1], want), (name, j)
        assert np.array_equal(got[0], got[1]), f"{name}: {np.sum(got[0] != got[1])} of {got[0].size} points differ"
