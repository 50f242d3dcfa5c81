"""2.5-D blocking of 3-D stencils (profilers/analysis/planes.py, optimizer/restructure/march.py,
api.march_plans): the spellings of tests/march/ and the suite's 3-D stencils (a loop over z in each thread, a
3-D grid of threads, 2-D blocks with the plane on blockIdx.z) get `stencil-march`; its first setting and a
second one (another tile, a shorter chunk of planes) are compiled with nvcc in one call and run in the CPU
emulator, all in one program, at sizes off every tile and chunk, against the kernel as written (the boundary
left as it was). An in-place sweep and a kernel that keeps its own window of planes get no plan and say why."""
from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

from compile_batch import compile_each
from emu_run import Batch

from kernelpro.optimizer.restructure import api
from kernelpro.profilers.analysis.planes import PlaneLoop, Stencil3, plane_loop, stencil3
from kernelpro.profilers.compile import CompileOptions
from kernelpro.profilers.source import parse_source

TESTS = os.path.dirname(os.path.abspath(__file__))
HERE = os.path.join(TESTS, "march")
SUITE = os.path.join(os.path.dirname(TESTS), "benchmarks", "suite")
GXX = shutil.which("g++")
F4, D8 = np.float32, np.float64
X, Y, Z = 37, 11, 35  # off the 32 x 8 tile and the chunks of 32 and 16 planes
N3 = 19

# name -> (path, kernel, grid, block, {array: (shape, dtype)}, scalars, output, second knob setting)
CASES = {
    "heat7_zloop": (os.path.join(HERE, "heat7_zloop.cu"), "heat_step", ["cdiv(nx, 32)", "cdiv(ny, 8)"], [32, 8],
                    {"T": ((Z, Y, X), F4), "Tnew": ((Z, Y, X), F4)}, {"nx": X, "ny": Y, "nz": Z, "r": 0.1}, "Tnew",
                    {"tx": 32, "ty": 4, "chunk": 16}),
    "lap3d_coef_zloop": (os.path.join(HERE, "lap3d_coef_zloop.cu"), "laplacian", ["cdiv(nx, 16)", "cdiv(ny, 16)"],
                         [16, 16], {"out": ((Z, Y, X), D8), "u": ((Z, Y, X), D8), "w": ((4,), D8)},
                         {"nx": X, "ny": Y, "nz": Z}, "out", {"tx": 64, "ty": 4, "chunk": 16}),
    "box27_zloop": (os.path.join(HERE, "box27_zloop.cu"), "box27", ["cdiv(NX, 32)", "cdiv(NY, 4)"], [32, 4],
                    {"in": ((Z, Y, X), F4), "out": ((Z, Y, X), F4)}, {"NX": X, "NY": Y, "NZ": Z}, "out",
                    {"tx": 32, "ty": 8, "chunk": 16}),
    "star13_zloop": (os.path.join(HERE, "star13_zloop.cu"), "diffuse_z4", ["cdiv(nx, 32)", "cdiv(ny, 8)"], [32, 8],
                     {"dst": ((Z, Y, X), F4), "src": ((Z, Y, X), F4)},
                     {"nx": X, "ny": Y, "nz": Z, "cz1": 0.2, "cz2": -0.05, "cxy": 0.1}, "dst",
                     {"tx": 32, "ty": 8, "chunk": 16}),
    "jacobi7_grid3d": (os.path.join(HERE, "jacobi7_grid3d.cu"), "jacobi7", ["cdiv(n, 8)", "cdiv(n, 8)", "cdiv(n, 4)"],
                       [8, 8, 4], {"x": ((N3, N3, N3), D8), "b": ((N3, N3, N3), D8), "xnew": ((N3, N3, N3), D8)},
                       {"n": N3, "h2": 0.01}, "xnew", {"tx": 32, "ty": 4, "chunk": 16}),
    "suite_zloop": (os.path.join(SUITE, "stencil3d", "naive_zloop.cu"), "stencil3d", ["cdiv(W, 32)", "cdiv(H, 8)"],
                    [32, 8], {"out": ((Z, Y, X), F4), "inp": ((Z, Y, X), F4)}, {"D": Z, "H": Y, "W": X}, "out",
                    {"tx": 64, "ty": 4, "chunk": 64}),
    "suite_grid3d": (os.path.join(SUITE, "stencil3d", "naive.cu"), "stencil3d", ["cdiv(W, 8)", "cdiv(H, 8)", "cdiv(D, 8)"],
                     [8, 8, 8], {"out": ((Z, Y, X), F4), "inp": ((Z, Y, X), F4)}, {"D": Z, "H": Y, "W": X}, "out",
                     {"tx": 32, "ty": 16, "chunk": 16}),
    "heat3d_blockz": (os.path.join(TESTS, "stencils", "heat3d_z.cu"), "heat3d", ["cdiv(nx, 32)", "cdiv(ny, 4)", "nz"],
                      [32, 4], {"out": ((Z, Y, X), F4), "in": ((Z, Y, X), F4)}, {"nx": X, "ny": Y, "nz": Z}, "out",
                      {"tx": 32, "ty": 4, "chunk": 16}),
}
NEGATIVE = {  # file -> (kernel, what not_applied says)
    "n_inplace_zloop": ("gs_sweep", "reads and writes u"),
    "n_window_zloop": ("stencil_regs", "carried from one plane to the next"),
    "n_edge_other_zloop": ("edge_other", "each but the last stores the same point and returns"),
}


def _ev(e, env):
    return int(eval(str(e).replace("/", "//"), {"cdiv": lambda a, b: -(-a // b), "max": max}, dict(env)))


def _plans(path, kernel, grid, block):
    text = open(path).read()
    k = parse_source(text).kernel(kernel)
    launch = {"grid": grid, "block": block}
    ctx = api.Context(kernel=kernel, path=path, launch=launch, base_launch=dict(launch), size_env={},
                      scalar_params={p.name: p.name for p in k.params if not p.is_pointer},
                      answers_present=("memory-bound",))
    return text, k, api.plans(text, ctx)


@pytest.fixture(scope="module")
def built():
    out = {}
    for name, (path, kernel, grid, block, _, _, _, second) in CASES.items():
        text, k, (plans, why) = _plans(path, kernel, grid, block)
        p = next((p for p in plans if p.name == "stencil-march"), None)
        cands = [] if p is None else [p.build(p.space[0]), p.build(second)]
        out[name] = (text, k, cands, why, p)
    return out


def test_the_loop_over_planes_and_the_offsets():
    src = parse_source(open(CASES["lap3d_coef_zloop"][0]).read())
    pl = plane_loop(src, src.kernels[0])
    assert isinstance(pl, PlaneLoop) and pl.var == "iz" and pl.bound == "(nz - 2) + 1"
    text, k, (plans, _) = _plans(*(CASES["star13_zloop"][i] for i in range(4)))
    from kernelpro.optimizer.restructure import march
    src = parse_source(text)
    planes = parse_source(march.plane_form(src, src.kernels[0], plane_loop(src, src.kernels[0])))
    st = stencil3(planes, planes.kernels[0])
    assert isinstance(st, Stencil3) and st.array == "src"
    assert sorted(p[1:] for p in st.points) == sorted([(0, 0, 0), (0, 0, -1), (0, 0, 1), (0, 0, -2), (0, 0, 2),
                                                       (-1, 0, 0), (1, 0, 0), (0, -1, 0), (0, 1, 0)])
    assert st.span(2) == (2, 2) and st.column == {-2, -1, 0, 1, 2} and st.flat == {0}


def test_each_spelling_gets_the_march(built):
    missing = {n: built[n][3] for n in CASES if not built[n][2]}
    assert not missing, missing
    for name, (_, _, cands, _, plan) in built.items():
        c = cands[0]
        assert c.kind == "structural" and c.origin == "builtin:stencil-march", (name, c.origin)
        assert "marching along z" in c.description and len(c.launch["grid"]) == 3, (name, c.description)
        assert dict(c.knobs)["chunk"] == 32 and len(plan.space) > 2


@pytest.mark.parametrize("name", sorted(NEGATIVE))
def test_no_march_and_a_reason(name):
    kernel, why = NEGATIVE[name]
    _, _, (plans, said) = _plans(os.path.join(HERE, f"{name}.cu"), kernel, ["cdiv(nx, 32)", "cdiv(ny, 8)"], [32, 8])
    assert "stencil-march" not in [p.name for p in plans], said
    assert any(w.startswith("march:") and why in w for w in said), said


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_every_march_compiles_and_computes_what_the_kernel_computes(built, tmp_path):
    names = sorted(CASES)
    runs = [(n, j) for n in names for j in range(2)]
    problems = compile_each(CASES[names[0]][0], [(CASES[n][1], built[n][2][j].source, ()) for n, j in runs],
                            CompileOptions(arch="sm_90"))
    assert not [r for r, p in zip(runs, problems) if p], [(r, p) for r, p in zip(runs, problems) if p]
    items = [(built[n][0], CASES[n][1]) for n in names] + [(built[n][2][j].source, CASES[n][1]) for n, j in runs]
    batch = Batch(items, str(tmp_path))

    def run(i, name, grid, block):
        path, kernel, _, _, arrays, scalars, out, _ = CASES[name]
        k = built[name][1]
        rng = np.random.default_rng(7)
        args = [rng.standard_normal(arrays[p.name][0]).astype(arrays[p.name][1]).reshape(-1) if p.name in arrays
                else scalars[p.name] for p in k.params]
        return batch.run(i, args, [_ev(g, scalars) for g in grid], block)[[p.name for p in k.params].index(out)]

    for i, name in enumerate(names):
        want = run(i, name, CASES[name][2], CASES[name][3])
        for j in range(2):
            c = built[name][2][j]
            got = run(len(names) + 2 * i + j, name, c.launch["grid"], c.launch["block"])
            assert np.array_equal(want, got), f"{name} {dict(c.knobs)}: {np.sum(want != got)} of {got.size} differ"


def test_the_window_alone_comes_first_and_the_ring_after(built):
    """The register window without shared tiles (one call of the old body a point, the plane before's values
    where it read the same address) is the space's first setting; the shared ring stays in the space."""
    for name, (_, _, cands, _, plan) in built.items():
        first, second = cands
        assert dict(first.knobs).get("regs") == 1 and "kp_march_" in first.source and "__shared__" not in \
            first.source.split("__global__")[-1], name
        assert "regs" not in dict(second.knobs) and "kp_roles_" in second.source, name
        assert any("regs" not in s for s in plan.space)
    c = built["suite_grid3d"][2][0]  # 7 points: the four in the plane and the one ahead loaded, two from registers
    assert "5 loaded a plane" in c.description, c.description
