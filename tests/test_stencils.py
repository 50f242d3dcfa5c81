"""Stencils through a shared-memory tile with a halo (profilers/analysis/stencils.py,
optimizer/restructure/stencil.py, taps.py): the suite's 2-D stencil and 3x3 convolutions (loops over the
taps, zero padding, a filter in constant memory) and the spellings of tests/stencils/ get the tile,
compiled with nvcc and run in the CPU emulator at sizes off the block against the kernel as written;
an in-place sweep and a one-dimensional launch get none and say why."""
from __future__ import annotations

import os
import re
import shutil

import numpy as np
import pytest

from compile_batch import compile_each
from emu_run import Batch

from kernelpro.optimizer.restructure import api, taps
from kernelpro.profilers.analysis.stencils import Refusal, Stencil, stencil
from kernelpro.profilers.compile import CompileOptions
from kernelpro.profilers.source import parse_source

TESTS = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(os.path.dirname(TESTS), "benchmarks", "suite")
GXX = shutil.which("g++")
H, W, D = 137, 45, 5  # H: several block rows of the 64- and 128-row tiles (several rows a thread)

# name -> (path, kernel, grid, block, {array: shape}, scalars, output)
CASES = {
    "stencil2d": (os.path.join(SUITE, "stencil2d", "naive.cu"), "stencil2d", ["cdiv(W, 32)", "cdiv(H, 8)"], [32, 8],
                  {"out": (H, W), "inp": (H, W)}, {"H": H, "W": W}, "out"),
    "conv_loops": (os.path.join(SUITE, "conv3x3", "naive.cu"), "conv3x3", ["cdiv(W, 16)", "cdiv(H, 16)"], [16, 16],
                   {"out": (H, W), "inp": (H, W)}, {"H": H, "W": W}, "out"),
    "conv_const": (os.path.join(SUITE, "conv3x3", "naive_const.cu"), "conv3x3", ["cdiv(W, 32)", "cdiv(H, 4)"], [32, 4],
                   {"out": (H, W), "inp": (H, W)}, {"H": H, "W": W}, "out"),
    "jacobi": (os.path.join(TESTS, "stencils", "jacobi_literal.cu"), "jacobi", ["cdiv(n, 16)", "cdiv(n, 16)"], [16, 16],
               {"u": (H, H), "un": (H, H), "f": (H, H)}, {"n": H, "h2": 0.01}, "un"),
    "jacobi_bc": (os.path.join(TESTS, "stencils", "jacobi_boundary.cu"), "jacobi_bc", ["cdiv(n, 32)", "cdiv(n, 8)"],
                  [32, 8], {"u": (H, H), "un": (H, H)}, {"n": H}, "un"),  # the boundary copied, then `return`
    # the neighbours clamped at the edges through ?:, min and max: a choice between two fixed loads (clamped_neighbours)
    "clamped": (os.path.join(TESTS, "stencils", "n_clamped.cu"), "clamped", ["cdiv(n, 32)", "cdiv(n, 8)"], [32, 8],
                {"in": (H, H), "out": (H, H)}, {"n": H}, "out"),
    # one dimension of threads: a tile of one row with its halo along x
    "line1d": (os.path.join(TESTS, "stencils", "n_line1d.cu"), "smooth1d", ["cdiv(n, 64)"], [64],
               {"y": (W * H,), "x": (W * H,)}, {"n": W * H}, "y"),
    # the block's height a literal, blockDim.y only in a comment: no tile of another shape
    "literal_rows": (os.path.join(TESTS, "stencils", "n_literal_rows_comment.cu"), "st1", ["cdiv(W, 32)", "cdiv(H, 8)"],
                     [32, 8], {"out": (H, W), "inp": (H, W)}, {"H": H, "W": W}, "out"),
    # a flat index, the border copied in `if`, the interior in `else` (passes.else_to_return)
    "heat_else": (os.path.join(TESTS, "stencils", "heat_else.cu"), "heat_else", ["cdiv(nx * ny, 256)"], [256],
                  {"T": (H, W), "Tnew": (H, W)}, {"nx": W, "ny": H, "r": 0.2}, "Tnew"),
    "heat3d": (os.path.join(TESTS, "stencils", "heat3d_z.cu"), "heat3d", ["cdiv(nx, 32)", "cdiv(ny, 4)", "nz"], [32, 4],
               {"out": (D, H, W), "in": (D, H, W)}, {"nx": W, "ny": H, "nz": D}, "out"),
}


def _ev(e, env):
    return int(eval(str(e).replace("/", "//"), {"cdiv": lambda a, b: -(-a // b)}, dict(env)))


def _ctx(path, kernel, grid, block):
    return api.Context(kernel=kernel, path=path, launch={"grid": grid, "block": block},
                       base_launch={"grid": grid, "block": block}, size_env={})


def test_the_analysis_reads_offsets_and_halo():
    src = parse_source(open(CASES["stencil2d"][0]).read())
    st = stencil(src, src.kernels[0])
    assert isinstance(st, Stencil) and st.array == "inp"
    assert sorted((dx, dy) for _, dx, dy in st.points) == [(-1, 0), (0, -1), (0, 0), (0, 1), (1, 0)]
    assert st.halo == (1, 1, 1, 1)
    path = CASES["heat3d"][0]
    src = parse_source(open(path).read())
    st = stencil(src, src.kernels[0])
    assert len(st.points) == 6 and len(st.others) == 2  # the two other planes stay global loads
    text = taps.unroll_taps(open(CASES["conv_const"][0]).read(), CASES["conv_const"][0], "conv3x3")
    src = parse_source(text)
    st = stencil(src, src.kernels[0])
    assert isinstance(st, Stencil) and len({(dx, dy) for _, dx, dy in st.points}) == 9


@pytest.mark.parametrize("name,why", [("n_inplace", "in-place"), ("n_two_points", "2 stores"),
                                      ("n_interleaved", "ch elements apart (interleaved")])
def test_no_tile_where_it_would_change_the_result_or_has_no_rows(name, why):
    path = os.path.join(TESTS, "stencils", f"{name}.cu")  # a flat index split into rows: tests/test_flat_view.py
    text = open(path).read()
    k = parse_source(text).kernels[0]
    plans, said = api.plans(text, _ctx(path, k.name, ["cdiv(n, 32)", "cdiv(n, 8)"], [32, 8]))
    assert "stencil-tile" not in [p.name for p in plans]
    assert any(w.startswith("stencil:") and why in w for w in said), said
    assert isinstance(stencil(parse_source(text), k), Refusal)


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
@pytest.mark.parametrize("name", sorted(CASES))
def test_each_tile_compiles_and_computes_what_the_kernel_computes(name, tmp_path):
    path, kernel, grid, block, _, scalars, _ = CASES[name]
    text = open(path).read()
    ctx = _ctx(path, kernel, grid, block)
    k0 = parse_source(text).kernel(kernel)  # the spec's scalars, as optimize gives them
    ctx = api.replace(ctx, size_env={"small": dict(scalars)},
                      scalar_params={p.name: p.name for p in k0.params if not p.is_pointer})
    plans, why = api.plans(text, ctx)
    plan = next((p for p in plans if p.name == "stencil-tile"), None)
    assert plan is not None, why
    cands = [plan.build(knobs) for knobs in plan.space]  # every tile shape the node tunes
    if name == "literal_rows":
        assert [c.launch["block"] for c in cands] == [block], plan.space
    assert all(c.kind == "structural" for c in cands)
    _same_as_written(name, text, cands, tmp_path)


def _same_as_written(name: str, text: str, cands, tmp_path, seed: int = 11):
    """Every candidate compiles with nvcc and, run in the CPU emulator with its own launch, stores exactly what
    the kernel as written stores (CASES[name]'s arrays, sizes and launch)."""
    path, kernel, grid, block, arrays, scalars, out = CASES[name]
    problems = compile_each(path, [(kernel, c.source, ()) for c in cands], CompileOptions(arch="sm_90"))
    assert problems == [None] * len(cands), problems
    batch = Batch([(text, kernel)] + [(c.source, kernel) for c in cands], str(tmp_path))
    k = parse_source(text).kernel(kernel)
    idx = [p.name for p in k.params].index(out)
    launches = [(grid, block)] + [(c.launch["grid"], c.launch["block"]) for c in cands]
    got = []
    for i, (g, b) in enumerate(launches):
        rng = np.random.default_rng(seed)
        args = [rng.standard_normal(arrays[p.name]).astype(np.float32).reshape(-1) if p.name in arrays
                else scalars[p.name] for p in k.params]
        got.append(batch.run(i, args, [_ev(x, scalars) for x in g], [_ev(x, scalars) for x in b])[idx])
    for c, g in zip(cands, got[1:]):
        assert np.array_equal(got[0], g), f"{c.description}: {np.sum(got[0] != g)} of {g.size} points differ"


def test_a_one_dimensional_stencil_is_tiled_only_where_every_neighbour_is_along_x():
    """The classic 1-D stencil (tests/probe27/stencil1d_define.cu, its taps' loop written out) gets a tile of
    one row; not a flat index whose neighbours include rows (`idx - W`: the flat view's 2-D tile), not an
    in-place line, and not a radius only known at run time (its taps cannot be written out; nor is the loop over
    them a row for a warp: seven elements)."""
    line = open(os.path.join(TESTS, "stencils", "n_line1d.cu")).read()
    src = parse_source(line)
    st = stencil(src, src.kernels[0])
    assert isinstance(st, Stencil) and sorted(dx for _, dx, _ in st.points) == [-1, 0, 1] and st.halo == (1, 1, 0, 0)
    rows = line.replace("x[i - 1] + 0.5f * x[i] + 0.25f * x[i + 1]", "x[i - 1] + 0.5f * x[i] + 0.25f * x[i + n / 2]")
    assert isinstance(stencil(parse_source(rows), parse_source(rows).kernels[0]), Refusal)
    inplace = line.replace("float* y, const float* x", "float* y, float* x").replace("y[i] =", "x[i] =")
    assert "in-place" in stencil(parse_source(inplace), parse_source(inplace).kernels[0]).reason
    radius = open(os.path.join(TESTS, "probe27", "stencil1d_radius.cu")).read()
    k = parse_source(radius).kernels[0]

    def offered(text, env):
        ctx = api.Context(kernel=k.name, path="r.cu", launch={"grid": ["cdiv(n, 256)"], "block": [256]},
                          base_launch={"grid": ["cdiv(n, 256)"], "block": [256]},
                          size_env={"s": env}, scalar_params={"n": "n", "R": "R"})
        plans, said = api.plans(text, ctx)
        return [p.name for p in plans], said

    names, said = offered(radius, {"n": 100000, "R": 3})  # the spec's radius: the tile for R = 3
    assert "stencil-tile" in names and any("7 elements at most" in w for w in said), said
    names, said = offered(radius, {"n": 100000, "R": 5})  # eleven taps: more than are written out
    assert "stencil-tile" not in names
    assert any(w.startswith("stencil: line 9: `for (int offset = -R; offset <= R; offset++)") and "run time" in w
               for w in said), said  # the tile says why it is not offered
    fixed = radius.replace("offset = -R; offset <= R;", "offset = -3; offset <= 3;")
    assert taps.runtime_taps(fixed, "r.cu", k.name) is None  # literal bounds: written out, nothing to say
    grid_stride = "__global__ void s(const float* in, float* out, int n) {\n" \
                  "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) out[i] = in[i];\n}\n"
    assert taps.runtime_taps(grid_stride, "g.cu", "s") is None  # a loop over the thread's points, not over taps


# file -> (kernel, grid, block, {array: elements}, sizes the plan is built for, other sizes it is also run at, output)
RADIUS = {
    "stencil1d_radius": (os.path.join(TESTS, "probe27", "stencil1d_radius.cu"), ["cdiv(n, 256)"], [256],
                         {"in": "n + 2 * R", "out": "n"}, {"n": 1001, "R": 3}, ({"n": 1001, "R": 2},), "out", np.int32),
    "radius_conv1d": (os.path.join(TESTS, "stencils", "radius_conv1d.cu"), ["cdiv(Width, 64)"], [64],
                      {"N": "Width", "M": "Mask_Width", "P": "Width"}, {"Width": 1001, "Mask_Width": 5},
                      ({"Width": 1001, "Mask_Width": 7}, {"Width": 1001, "Mask_Width": 4}), "P", np.float32),
    "radius_conv2d": (os.path.join(TESTS, "stencils", "radius_conv2d.cu"), ["cdiv(width, 16)", "cdiv(height, 16)"],
                      [16, 16], {"N": "width * height", "F": "(2 * r + 1) * (2 * r + 1)", "P": "width * height"},
                      {"width": 45, "height": 37, "r": 1}, ({"width": 45, "height": 37, "r": 2},), "P", np.float32),
}


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
@pytest.mark.parametrize("name", sorted(RADIUS))
def test_a_radius_given_at_run_time_gets_the_tile_for_the_spec_s_value_and_stays_right_for_any(name, tmp_path):
    """A tap loop bounded by a parameter (`-R..R`, `j < Mask_Width`, `< 2 * r + 1`): the tile built for the
    spec's value, the kernel as written behind a branch for any other (taps.with_generic_path); both paths run
    in the emulator against the kernel as written."""
    path, grid, block, arrays, env, others, out, dt = RADIUS[name]
    text = open(path).read()
    k = parse_source(text).kernels[0]
    scalars = {p.name: p.name for p in k.params if not p.is_pointer}
    ctx = api.Context(kernel=k.name, path=path, launch={"grid": grid, "block": block},
                      base_launch={"grid": grid, "block": block}, size_env={"s": env}, scalar_params=scalars)
    plans, why = api.plans(text, ctx)
    plan = next((p for p in plans if p.name == "stencil-tile"), None)
    assert plan is not None, why
    c = plan.build(plan.space[0])
    assert c.kind == "structural" and "specialised for" in c.description and "__shared__" in c.source
    (problem,) = compile_each(path, [(k.name, c.source, ())], CompileOptions(arch="sm_90"))
    assert problem is None, "\n".join(problem)
    batch = Batch([(text, k.name), (c.source, k.name)], str(tmp_path))
    idx = [p.name for p in k.params].index(out)
    for sizes in (env,) + others:
        got = []
        for i in range(2):
            rng = np.random.default_rng(5)
            args = [(rng.standard_normal(_ev(arrays[p.name], sizes)) if dt == np.float32 else
                     rng.integers(-50, 50, _ev(arrays[p.name], sizes))).astype(dt) if p.is_pointer
                    else sizes[p.name] for p in k.params]
            got.append(batch.run(i, args, [_ev(g, sizes) for g in grid], block)[idx])
        assert np.allclose(got[0], got[1], rtol=1e-5, atol=1e-5), f"{sizes}: {np.sum(got[0] != got[1])} points differ"


def test_a_final_if_else_is_read_as_an_early_return_only_where_that_is_the_same():
    from kernelpro.optimizer.restructure.passes import else_to_return
    k = ("__global__ void g(const float* a, float* b, int n) {\n  int i = threadIdx.x;\n"
         "  if (i == 0) { b[i] = a[i]; } else { float v = a[i - 1]; b[i] = v + a[i]; }\n}\n")
    got = else_to_return(k, "g.cu", "g")
    assert got is not None and "return;" in got and "else" not in got and got.index("return;") < got.index("float v")
    for bad in (k.replace("}\n}\n", "}\n  b[0] = 1.f;\n}\n"),  # something follows the if: it would be skipped
                k.replace("{ b[i] = a[i]; }", "{ b[i] = a[i]; return; }"),  # the branch leaves already
                k.replace("int i = threadIdx.x;", "int i = threadIdx.x; float v = 0.f;"),  # v named twice in one scope
                k.replace("else {", "else if (i > 1) {")):  # an else-if chain
        assert else_to_return(bad, "g.cu", "g") is None, bad
    # a comment between `else` and its branch is not the branch (it was taken for it, and the branch went)
    commented = else_to_return(k.replace("else {", "else  // the interior\n  {"), "g.cu", "g")
    assert commented is not None and "b[i] = v + a[i];" in commented


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_a_neighbour_count_that_skips_its_centre_and_stores_in_branches_gets_the_tile(tmp_path):
    """Blind round I's Game of Life (`for dr, dc in -1..1: if (dr == 0 && dc == 0) continue; if (in bounds) alive +=
    grid[..]`, then three stores of the point in an if/else chain): the loops written out with the centre's copy
    gone, the stores one select; every tile setting gives the kernel's next generation exactly, at 137 x 45."""
    path = os.path.join(TESTS, "probe_i", "i10_game_of_life.cu")  # (kernel only, as the round wrote it)
    text = open(path).read()
    k0 = parse_source(text).kernel("life_step")
    grid, block, scalars = ["cdiv(cols, 32)", "cdiv(rows, 8)"], [32, 8], {"rows": H, "cols": W}
    ctx = api.replace(_ctx(path, "life_step", grid, block), size_env={"small": dict(scalars)},
                      scalar_params={p.name: p.name for p in k0.params if not p.is_pointer})
    plans, why = api.plans(text, ctx)
    plan = next((p for p in plans if p.name == "stencil-tile"), None)
    assert plan is not None, why
    cands = [plan.build(knobs) for knobs in plan.space]
    problems = compile_each(path, [("life_step", c.source, ()) for c in cands], CompileOptions(arch="sm_90"))
    assert problems == [None] * len(cands), problems
    batch = Batch([(text, "life_step")] + [(c.source, "life_step") for c in cands], str(tmp_path))
    cells = (np.random.default_rng(3).random(H * W) < 0.35).astype(np.int32)
    runs = [(grid, block)] + [(c.launch["grid"], c.launch["block"]) for c in cands]
    got = [batch.run(i, [cells.copy(), np.full(H * W, -1, np.int32), H, W], [_ev(x, scalars) for x in g],
                     [_ev(x, scalars) for x in b])[1] for i, (g, b) in enumerate(runs)]
    assert set(np.unique(got[0])) <= {0, 1}
    for c, g in zip(cands, got[1:]):
        assert np.array_equal(got[0], g), f"{c.description}: {np.sum(got[0] != g)} cells differ"


def test_branch_stores_merge_only_where_every_path_stores_the_same_element():
    from kernelpro.optimizer.restructure.passes import merge_branch_stores
    k = ("__global__ void g(const int* a, int* b, int n) {\n  int i = threadIdx.x;\n"
         "  if (a[i] > 2) b[i] = 1;\n  else if (a[i] == 0) b[i] = 2;\n  else b[i] = 0;\n}\n")
    got = merge_branch_stores(k, "g.cu", "g")
    assert got is not None and got.count("b[i] =") == 1 and "((a[i] > 2)) ? (1) : (((a[i] == 0)) ? (2) : (0))" in got
    for bad in (k.replace("  else b[i] = 0;\n", ""),  # a path that stores nothing
                k.replace("else b[i] = 0;", "else b[i + 1] = 0;"),  # another element
                k.replace("else b[i] = 0;", "else { b[i] = 0; n = 1; }")):  # more than the store
        assert merge_branch_stores(bad, "g.cu", "g") is None, bad


def test_a_tap_s_copy_goes_only_where_its_jump_is_taken_before_anything_else():
    from kernelpro.optimizer.restructure.taps import unroll_taps
    k = ("__global__ void g(const float* in, float* out, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (i < 1 || i >= n - 1) return;\n  float s = 0.f, t = 0.f;\n"
         "  for (int d = -1; d <= 1; ++d) { if (d == 0) continue; s += in[i + d]; }\n  out[i] = s;\n}\n")
    got = unroll_taps(k, "g.cu", "g")
    assert got is not None and "goto" not in got and "in[i + (0)]" not in got and got.count("s += in[") == 2
    # an update before the jump stays (the centre's t += still runs)
    k2 = k.replace("{ if (d == 0) continue; s += in[i + d]; }", "{ t += in[i + d]; if (d == 0) continue; s += in[i + d]; }")
    got2 = unroll_taps(k2, "g.cu", "g")
    assert got2 is not None and got2.count("t += in[") == 3


CASES["weight_local"] = (os.path.join(TESTS, "stencils", "weight_local.cu"), "wst", ["cdiv(W, 32)", "cdiv(H, 8)"],
                         [32, 8], {"out": (H, W), "inp": (H, W), "w": (4,)}, {"H": H, "W": W}, "out")
MARCHED = ("stencil2d", "conv_loops", "conv_const", "jacobi_bc", "clamped", "weight_local")  # (jacobi, literal_rows: the block's
# shape written as numbers, no strip of another height: no march, tested below; heat3d, on a 3-D grid: the plane march)


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
@pytest.mark.parametrize("name", MARCHED)
def test_each_register_march_computes_what_the_kernel_computes(name, tmp_path):
    """The march (a strip of rows a thread, a neighbour taken from the row before's registers where that read
    the same address) at every knob of its space, at sizes that end mid-strip, against the kernel as written."""
    path, kernel, grid, block, _, scalars, _ = CASES[name]
    text = open(path).read()
    k0 = parse_source(text).kernel(kernel)
    ctx = api.replace(_ctx(path, kernel, grid, block), size_env={"small": dict(scalars)},
                      scalar_params={p.name: p.name for p in k0.params if not p.is_pointer})
    plans, why = api.plans(text, ctx)
    plan = next((p for p in plans if p.name == "stencil-window"), None)
    assert plan is not None, why
    cands = [plan.build(knobs) for knobs in plan.space]
    assert all(c.kind == "structural" and c.origin == "builtin:stencil-window" for c in cands)
    assert {tuple(c.launch["block"]) for c in cands} == {(kn["tx"], kn["ty"]) for kn in plan.space}
    _same_as_written(name, text, cands, tmp_path, seed=5)


def test_the_march_reuses_a_neighbour_only_where_the_row_before_read_its_address():
    """A 3x3 filter loads the row below's three and takes the other six from the row before's registers, each
    behind the test that the row before read that very address (a clamped edge reads another); a 5-point stencil
    loads three. One call of the old body a point."""
    for name, fresh in (("conv_loops", 3), ("stencil2d", 3)):
        path, kernel, grid, block, _, scalars, _ = CASES[name]
        ctx = api.replace(_ctx(path, kernel, grid, block), size_env={"small": dict(scalars)},
                          scalar_params={s: s for s in scalars})
        plans, _ = api.plans(open(path).read(), ctx)
        plan = next(p for p in plans if p.name == "stencil-window")
        c = plan.build(plan.space[0])
        assert f"({fresh} loaded a row instead of" in c.description, c.description
        helper = c.source[c.source.index(f"bool kp_march_{kernel}"):c.source.index(f"__global__ void {kernel}")]
        loads = len(re.findall(r"\(kp_val\[\d+\] = ", helper))
        reused = len(re.findall(r"kp_pa\[\d+\] == \(kp_addr\[\d+\] = ", helper))
        assert loads - reused == fresh and loads >= 5, (loads, reused)
        body = c.source[c.source.index(f"__global__ void {kernel}"):]
        assert body.count(f"kp_march_{kernel}(") == 1 and "kp_roles_" not in c.source


@pytest.mark.parametrize("name", ["jacobi", "literal_rows"])
def test_no_march_where_the_kernel_writes_its_block_s_shape_as_numbers(name):
    path, kernel, grid, block, *_ = CASES[name]
    plans, _ = api.plans(open(path).read(), _ctx(path, kernel, grid, block))
    names = [p.name for p in plans]
    assert "stencil-tile" in names and "stencil-window" not in names, names


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
@pytest.mark.parametrize("plan_name", ["stencil-tile", "stencil-window"])
def test_a_reshaped_tile_or_strip_does_nothing_past_the_old_grid(plan_name, tmp_path):
    """A kernel without guards whose launch covers exactly its outputs: the tiles and strips of other heights round
    the grid up, and the old threads past the old grid's edge must neither read nor write (each array is followed by
    a sentinel tail that must stay as it was)."""
    path = os.path.join(TESTS, "stencils", "pad_noguard.cu")
    h, w, tail = 72, 64, 8192  # 72 rows: no multiple of the 64- and 128-row tiles and strips
    grid, block, scalars = ["W / 32", "H / 8"], [32, 8], {"H": h, "W": w}
    text = open(path).read()
    ctx = api.replace(_ctx(path, "pad", grid, block), size_env={"small": dict(scalars)},
                      scalar_params={"H": "H", "W": "W"})
    plans, why = api.plans(text, ctx)
    plan = next((p for p in plans if p.name == plan_name), None)
    assert plan is not None, why
    cands = [plan.build(knobs) for knobs in plan.space]
    assert any((c.launch["grid"], c.launch["block"]) != (grid, block) for c in cands)
    batch = Batch([(text, "pad")] + [(c.source, "pad") for c in cands], str(tmp_path))
    launches = [(grid, block)] + [(c.launch["grid"], c.launch["block"]) for c in cands]
    got = []
    for i, (g, b) in enumerate(launches):
        rng = np.random.default_rng(3)
        inp = np.concatenate([rng.standard_normal((h + 2) * (w + 2)), np.full(tail, np.nan)]).astype(np.float32)
        out = np.concatenate([np.zeros(h * w), np.full(tail, 7.0)]).astype(np.float32)
        got.append(batch.run(i, [out, inp, h, w], [_ev(x, scalars) for x in g], [_ev(x, scalars) for x in b])[0])
    assert np.all(got[0][h * w:] == 7.0) and np.all(np.isfinite(got[0][:h * w]))
    for c, g in zip(cands, got[1:]):
        assert np.all(g[h * w:] == 7.0), f"{c.description}: wrote past the outputs"
        assert np.array_equal(got[0], g), f"{c.description}: {np.sum(got[0] != g)} points differ"
