"""More spellings of a matrix product that the tile plan rewrites (tests/matmul/): sizes as #defines
with a typedef'd element type (PolyBench), the thread's row and column written out at every use,
operands moved to the batch with `+=`, and llm.c's attention scores whose batch is the high digits
of the flat index the row and column split (also as a last quotient under an early return). The tiles are compiled with nvcc and run in the CPU
emulator against numpy and the kernel as written, at sizes that are not multiples of the tiles."""
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

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "matmul_forms")  # spellings the passes prepare
RECOGNISED = os.path.join(os.path.dirname(HERE), "matmul")  # spellings the recogniser reads as written
PROBE26 = os.path.join(os.path.dirname(HERE), "probe26")  # public-style kernels of the first-step measure
PROBE_F = os.path.join(os.path.dirname(HERE), "probe_f")  # blind round F (matrix products)


def _path(name):
    for d in (HERE, RECOGNISED, PROBE26, PROBE_F):
        p = os.path.join(d, f"{name}.cu")
        if os.path.exists(p):
            return p
    return os.path.join(RECOGNISED, f"{name}.cu")
GXX = shutil.which("g++")
B_, T_, NH_, HS_ = 2, 37, 3, 5
C_ = NH_ * HS_


def _scores(v):
    x = v["inp"].reshape(B_, T_, 3, NH_, HS_)
    q, k = x[:, :, 0].transpose(0, 2, 1, 3), x[:, :, 1].transpose(0, 2, 1, 3)
    s = q @ np.swapaxes(k, 2, 3) / np.sqrt(HS_)
    return np.where(np.tril(np.ones((T_, T_))) > 0, s, -np.inf)


def _att_value(att, inp, nh):
    """out[b, t, h * hs + i] = sum over t2 <= t of att[b, h, t, t2] * v[b, t2, h, i], v the last third of inp."""
    b_, t_, c3 = inp.shape
    c = c3 // 3
    v = inp[:, :, 2 * c:].reshape(b_, t_, nh, c // nh).transpose(0, 2, 1, 3)  # (B, NH, T, hs)
    w = np.where(np.tril(np.ones((t_, t_))) > 0, att, 0.0)
    return (w @ v).transpose(0, 2, 1, 3).reshape(b_, t_, c)


# file -> (grid, block, {array: shape}, {scalar: value}, output, reference)
CASES = {
    "gemm_macros": (["cdiv(53, 32)", "cdiv(37, 8)"], [32, 8], {"a": (37, 29), "b": (29, 53), "c": (37, 53)},
                    {"alpha": 1.5, "beta": -0.5}, "c", lambda v: -0.5 * v["c"] + 1.5 * v["a"] @ v["b"]),
    "gemm_inline": (["cdiv(n, 16)", "cdiv(n, 16)"], [16, 16], {"A": (37, 37), "B": (37, 37), "C": (37, 37)},
                    {"n": 37}, "C", lambda v: v["A"] @ v["B"]),
    "bmm_ptrstep": (["cdiv(N, 16)", "cdiv(M, 16)", 3], [16, 16], {"A": (3, 37, 29), "B": (3, 29, 53),
                                                                 "C": (3, 37, 53)},
                    {"M": 37, "N": 53, "K": 29}, "C", lambda v: v["A"] @ v["B"]),
    "attn_qk_flat": (["cdiv(B * NH * T * T, 256)"], [256], {"preatt": (B_, NH_, T_, T_), "inp": (B_, T_, 3 * C_)},
                     {"B": B_, "T": T_, "C": C_, "NH": NH_}, "preatt", _scores),
    "attn_flat_return": (["cdiv(heads * n * n, 128)"], [128], {"out": (3, 37, 37), "q": (3, 37, 5), "k": (3, 37, 5)},
                         {"heads": 3, "n": 37, "d": 5, "s": 0.5}, "out",
                         lambda v: np.where(np.tril(np.ones((37, 37))) > 0, 0.5 * v["q"] @ np.swapaxes(v["k"], 1, 2),
                                            -np.inf)),
    "attn_headlow": (["cdiv(heads * n * n, 128)"], [128], {"out": (3, 37, 37), "q": (3, 37, 5), "k": (3, 37, 5)},
                     {"heads": 3, "n": 37, "d": 5}, "out", lambda v: v["q"] @ np.swapaxes(v["k"], 1, 2)),
    "attn_bh_split": (["cdiv(B * NH * n * n, 128)"], [128], {"out": (2, 3, 21, 21), "q": (2, 3, 21, 5),
                                                             "k": (2, 3, 21, 5)},
                      {"B": 2, "NH": 3, "n": 21, "d": 5}, "out", lambda v: v["q"] @ np.swapaxes(v["k"], 2, 3)),
    # llm.c's attention_value_kernel1 and two named sums per thread, as tests/probe26/ holds them
    "llmc_attn_v": (["cdiv(B * T * NH, 64)"], [64], {"out": (2, 13, 12), "att": (2, 3, 13, 13),
                                                          "inp": (2, 13, 36)},
                          {"B": 2, "T": 13, "C": 12, "NH": 3}, "out", lambda v: _att_value(v["att"], v["inp"], 3)),
    "two_outputs": (["cdiv(N, 16)", "cdiv(M, 32)"], [16, 16], {"A": (37, 29), "B": (29, 53), "C": (37, 53)},
                      {"M": 37, "N": 53, "K": 29}, "C", lambda v: v["A"] @ v["B"]),
    # two rows a thread, the second named `row1 = row0 + blockDim.y` (round F): read as one output a thread
    "f31_two_rows_per_thread": (["cdiv(53, 16)", "cdiv(37, 32)"], [16, 16], {"A": (37, 29), "B": (29, 53),
                                                                           "C": (37, 53)},
                                {"M": 37, "N": 53, "K": 29}, "C", lambda v: v["A"] @ v["B"]),
    # llm.c's weight gradient over two loops (b, t) with row pointers and a value local cut in the inner loop
    "f10_llmc_backward_dweight": (["cdiv(29, 16)", "cdiv(37, 16)"], [16, 16],
                                  {"dweight": (37, 29), "dout": (2 * 13, 37), "inp": (2 * 13, 29)},
                                  {"B": 2, "T": 13, "C": 29, "OC": 37}, "dweight",
                                  lambda v: v["dweight"] + v["dout"].T @ v["inp"]),
    # sums of another function of the two operands (analysis/contraction.py's `combine`): distances between rows
    "dist_sq": (["cdiv(53, 16)", "cdiv(37, 16)"], [16, 16], {"x": (37, 29), "y": (53, 29), "out": (37, 53)},
                {"n": 37, "m": 53, "d": 29}, "out", lambda v: ((v["x"][:, None, :] - v["y"][None]) ** 2).sum(-1)),
    "dist_l1_self": (["cdiv(37, 16)", "cdiv(37, 16)"], [16, 16], {"p": (37, 29), "out": (37, 37)},
                     {"n": 37, "dim": 29}, "out",
                     lambda v: np.sqrt(np.abs(v["p"][:, None, :] - v["p"][None]).sum(-1))),
    "dist_written_twice": (["cdiv(37, 16)", "cdiv(53, 16)"], [16, 16], {"q": (37, 29), "ref": (53, 29),
                                                                        "out": (37, 53)},
                           {"nq": 37, "nr": 53, "dim": 29}, "out",
                           lambda v: ((v["q"][:, None, :] - v["ref"][None]) ** 2).sum(-1)),
}
SMALL = {"bm": 32, "bn": 16, "bk": 8, "tm": 2, "tn": 2, "pad": 1, "vec": 4, "stages": 2, "pre": 1}  # through registers


def _ev(e, env):
    return int(eval(str(e).replace("/", "//"), {"cdiv": lambda a, b: -(-a // b)}, dict(env)))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    runs = []  # (case, what, source, kernel, grid, block)
    for name, (grid, block, arrays, scalars, out, ref) in CASES.items():
        path = _path(name)
        text = open(path).read()
        k = parse_source(text, path).kernels[0]
        ctx = api.Context(kernel=k.name, path=path, launch={"grid": grid, "block": block},
                          base_launch={"grid": grid, "block": block},
                          size_env={"small": {s: v for s, v in scalars.items() if not isinstance(v, float)}},
                          scalar_params={p.name: p.name for p in k.params if not p.is_pointer})
        plans, why = api.plans(text, ctx)
        got = {p.name: p for p in plans}
        assert "matmul-tiles" in got, (name, list(got), why)
        assert not {"row-warp", "row-block"} & set(got), (name, list(got))
        if name == "two_outputs":  # read one output per thread: only the plans that set their own launch
            assert "matmul-coalesce" not in got, list(got)
        runs.append((name, "as written", text, k.name, grid, block))
        for knobs in (got["matmul-tiles"].space[0], SMALL):
            c = got["matmul-tiles"].build(knobs)
            runs.append((name, c.description, c.source, k.name, c.launch["grid"], c.launch["block"]))
    tiled = [r for r in runs if r[1] != "as written"]
    problems = compile_each(os.path.join(HERE, "x.cu"), [(r[3], r[2], ()) for r in tiled], CompileOptions(arch="sm_90"))
    for r, p in zip(tiled, problems):
        assert p is None, f"{r[0]}: {r[1]}:\n" + "\n".join(p)
    return runs, Batch([(r[2], r[3]) for r in runs], str(tmp_path_factory.mktemp("forms")))


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
@pytest.mark.parametrize("name", sorted(CASES))
def test_tiles_compute_the_product(built, name):
    runs, batch = built
    _, _, arrays, scalars, out, ref = CASES[name]
    k = parse_source(open(_path(name)).read()).kernels[0]
    idx = [p.name for p in k.params].index(out)
    mine = [(i, r) for i, r in enumerate(runs) if r[0] == name]
    assert len(mine) == 3
    want = None
    for i, (_, what, _, _, grid, block) in mine:
        rng = np.random.default_rng(2)
        args, views = [], {}
        for p in k.params:
            if p.is_pointer:
                x = rng.standard_normal(arrays[p.name]).astype(np.float64 if p.base_type == "double" else np.float32)
                views[p.name] = x.astype(np.float64)
                args.append(x.reshape(-1).copy())
            else:
                args.append(scalars[p.name])
        if want is None:
            want = np.asarray(ref(views), np.float64).reshape(-1)
        res = batch.run(i, args, [_ev(g, scalars) for g in grid], [_ev(b, scalars) for b in block])
        got = res[idx].astype(np.float64)
        assert np.allclose(got, want, rtol=1e-4, atol=1e-4), f"{what}: max error {np.max(np.abs(got - want))}"


SUITE = os.path.join(os.path.dirname(HERE), "..", "benchmarks", "suite")


def _proposer(family, stem, flops=None):
    from kernelpro.optimizer import spec_edit
    from kernelpro.optimizer.builtin import BuiltinProposer
    from kernelpro.optimizer.transforms import TransformInput
    from kernelpro.profilers.runtime.spec import load_spec
    path = os.path.join(SUITE, family, f"{stem}.cu")
    spec = load_spec(path[:-3] + ".kernelpro.toml")
    if flops is not None:
        spec.cost = {**spec.cost, "flops": flops}
    base = spec_edit.base_launch(spec)
    p = BuiltinProposer(spec.kernel, base, [], path=path, spec=spec)
    return p, TransformInput(source=open(path).read(), kernel=spec.kernel, launch=dict(base), base_launch=None)


def test_the_roofline_verdict_on_the_operation():
    from kernelpro.profilers.runtime.roofline import operation_bound
    n = 4096
    gemm = operation_bound(2 * n ** 3, 4 * 3 * n * n)  # ~683 FLOP/byte
    assert gemm == "compute-bound"
    assert operation_bound(4 * n * n, 8 * n * n) == "memory-bound"  # softmax: half a FLOP per byte
    # a measured ceiling moves the ridge: 100 FLOP/byte is past 14 but not past 200
    assert operation_bound(100, 1, {"dram_gbs": 1000.0, "fp32_gflops": 14000.0}) == "compute-bound"
    assert operation_bound(100, 1, {"dram_gbs": 100.0, "fp32_gflops": 20000.0}) == "memory-bound"
    assert operation_bound(None, 10) is None


def test_a_compute_bound_product_spends_the_budget_on_its_rewrites_first():
    p, inp = _proposer("gemm_fp32", "naive")
    assert p.bound == "compute-bound"
    cands = p.candidates(inp)
    first = cands[0][0]
    assert first.origin.startswith("builtin:matmul-") and cands[0][1] == 1.0, [(c.origin, pr) for c, pr in cands[:4]]
    local = [pr for c, pr in cands if c.kind != "structural"]
    assert local and max(local) < 1.0
    # the same kernel with a [cost] that puts it left of the ridge keeps the model's and the advice's order
    q, inp2 = _proposer("gemm_fp32", "naive", flops="M * N")
    assert q.bound == "memory-bound"
    mm = [pr for c, pr in q.candidates(inp2) if c.origin.startswith("builtin:matmul-")]
    assert mm and max(mm) < 1.0


def test_a_compute_bound_product_gives_its_tile_knobs_half_the_budget():
    gemm, _ = _proposer("gemm_fp32", "naive")  # [cost]: 2 M N K flops over 4 (MK + KN + 2MN) bytes
    assert (gemm.bound, gemm.tune_fraction, gemm.tune_per_node) == ("compute-bound", 0.5, 4)
    mem, _ = _proposer("gemm_fp32", "naive", flops="M * N")  # the same kernel told it is memory-bound
    assert (mem.tune_fraction, mem.tune_per_node) == (0.25, 3)


def test_register_tiles_of_runs_of_four_read_the_slabs_16_bytes_at_a_time():
    """A thread's 8 x 8 outputs as two runs of 4 rows and of 4 columns: each slab read with float4 (a quarter
    of the shared-memory instructions); 2 x 2 stays interleaved with scalar reads. Both compute the product
    (test_tiles_compute_the_product runs the first setting and SMALL)."""
    text = open(_path("gemm_inline")).read()
    k = parse_source(text).kernels[0]
    grid, block = CASES["gemm_inline"][:2]
    ctx = api.Context(kernel=k.name, path=_path("gemm_inline"), launch={"grid": grid, "block": block},
                      base_launch={"grid": grid, "block": block}, size_env={"small": {"n": 37}},
                      scalar_params={"n": "n"})
    tiles = {p.name: p for p in api.plans(text, ctx)[0]}["matmul-tiles"]
    quad = tiles.build({**tiles.space[0], "tm": 8, "tn": 8, "pad": 4, "swz": 0}).source
    assert quad.count("reinterpret_cast<const float4*>(&kp_") == 2 and "kp_tm * 4 + (kp_m / 4) *" in quad
    small = tiles.build(SMALL).source
    assert "reinterpret_cast<const float4*>(&kp_" not in small and "kp_tm + kp_m * 16" in small


def _tiles_run(tmp_path, name, grid, block, sizes, template=(), scalars=None, shared=0):
    """The matmul-tiles candidates (the space's first setting and SMALL) of a probe's kernel, compiled with nvcc and
    loaded in the emulator (host code blanked): (candidates, batch, the kernel's emulated name)."""
    from spec_emu import host_blanked
    path = os.path.join(os.path.dirname(HERE), name)
    text = open(path).read()
    k = parse_source(text, path).kernels[0]
    launch = {"grid": grid, "block": block, **({"shared_bytes": shared} if shared else {})}
    ctx = api.Context(kernel=k.name, path=path, launch=dict(launch),
                      base_launch=dict(launch), size_env={"small": {**sizes, **(scalars or {})}},
                      scalar_params={p.name: p.name for p in k.params if not p.is_pointer}, template=tuple(template))
    plans, why = api.plans(text, ctx)
    got = {p.name: p for p in plans}
    assert "matmul-tiles" in got, why
    cands = [got["matmul-tiles"].build(knobs) for knobs in (got["matmul-tiles"].space[0], SMALL)]
    problems = compile_each(str(tmp_path / "x.cu"), [(k.name, c.source, ()) for c in cands], CompileOptions(arch="sm_90"))
    assert problems == [None, None], problems
    emu = f"{k.name}<{', '.join(template)}>" if template else k.name
    return cands, Batch([(host_blanked(c.source), emu) for c in cands], str(tmp_path)), got


def _operands(seed, m, k, n, dtype=np.float32):
    rng = np.random.default_rng(seed)
    if dtype == np.int8:
        return rng.integers(-127, 128, (m, k)).astype(dtype), rng.integers(-127, 128, (k, n)).astype(dtype)
    return rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((k, n)).astype(dtype)


M_, K_, N_ = 37, 29, 53


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
@pytest.mark.parametrize("name, tile", [("probe_e/mm_template_tiled.cu", 16), ("probe_f/f04_cuda_samples_matrixMul.cu", 32)])
def test_a_template_tiled_product_with_the_tile_count_in_template_terms_is_read_back(tmp_path, name, tile):
    """Cuda-samples-style `template <int BLOCK_SIZE>` tiled products (rounds E and F): the tile loop counts
    `(wA + BLOCK_SIZE - 1) / BLOCK_SIZE` tiles, which cover k < wA once the spec's instantiation is in place
    (unstage._covers by value, whatever the order of the terms); round F's walks A and B with aBegin/aStep and
    names `row = by * BLOCK_SIZE + ty` beside a store at `c + wB * ty + tx` (contraction._fold reads both as the
    row; matmul._part_of gives by and ty back from it); the tiles they become compute the product."""
    sizes = {"hA": M_, "wA": K_, "wB": N_}
    cands, batch, _ = _tiles_run(tmp_path, name, [f"cdiv(wB, {tile})", f"cdiv(hA, {tile})"], [tile, tile], sizes,
                                 (str(tile),))
    a, b = _operands(5, M_, K_, N_)
    want = a.astype(np.float64) @ b.astype(np.float64)
    for i, c in enumerate(cands):
        out = np.full((M_, N_), np.nan, np.float32)
        res = batch.run(i, [out.reshape(-1), a.reshape(-1).copy(), b.reshape(-1).copy(), M_, K_, N_],
                        [_ev(g, sizes) for g in c.launch["grid"]], [_ev(x, sizes) for x in c.launch["block"]])
        assert np.allclose(res[0].reshape(M_, N_), want, rtol=1e-4, atol=1e-4), c.description


def test_a_tile_count_that_falls_short_is_not_taken_for_a_cover():
    from kernelpro.optimizer.restructure.unstage import _covers_by_value
    assert _covers_by_value("((BLOCK_SIZE + wA - 1) / BLOCK_SIZE)", "wA", 16, {"BLOCK_SIZE": 16})
    assert _covers_by_value("((wA - 1) / T + 1)", "wA", 32, {"T": 32})
    assert not _covers_by_value("(wA / BLOCK_SIZE)", "wA", 16, {"BLOCK_SIZE": 16})  # the last partial tile missed
    assert not _covers_by_value("((wA + 15) / 16)", "wA", 32, {})  # counted for another tile width
    assert not _covers_by_value("((wA + BS - 1) / BS)", "wA", 16, {})  # BS unknown: not assumed
    assert not _covers_by_value("((n + 15) / 16)", "wA", 16, {})  # another size


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_an_int8_product_with_int32_sums_through_static_casts_is_tiled_exactly(tmp_path):
    """Round F's int8 GEMM (`acc += static_cast<int32_t>(A[..]) * static_cast<int32_t>(B[..])`): the casts read as
    conversions (contraction._converts), the tiles sum in int32 and match the kernel bit for bit."""
    sizes = {"M": M_, "N": N_, "K": K_}
    cands, batch, got = _tiles_run(tmp_path, "probe_f/f26_int8_gemm_s32.cu", ["cdiv(N, 32)", "cdiv(M, 8)"], [32, 8], sizes)
    assert "matmul-wmma" not in got
    a, b = _operands(6, M_, K_, N_, np.int8)
    want = a.astype(np.int64) @ b.astype(np.int64)
    for i, c in enumerate(cands):
        res = batch.run(i, [a.reshape(-1).copy(), b.reshape(-1).copy(), np.zeros(M_ * N_, np.int32), M_, N_, K_],
                        [_ev(g, sizes) for g in c.launch["grid"]], [_ev(x, sizes) for x in c.launch["block"]])
        assert np.array_equal(res[2].reshape(M_, N_).astype(np.int64), want), c.description


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_a_tiled_product_whose_fills_choose_a_converted_zero_is_read_back(tmp_path):
    """Round F's `template <typename T, int TILE>` tiled product filling the tiles with `cond ? A[..] : T(0)`: the
    converted zero is a zero (unstage._zero), the fill's condition bounds k, and the value read back is
    parenthesised (it once went in as `c1 ? a : T(0) * c2 ? b : T(0)`); the tiles compute the product."""
    sizes = {"M": M_, "N": N_, "K": K_}
    cands, batch, _ = _tiles_run(tmp_path, "probe_f/f29_template_tiled_launcher.cu", ["cdiv(N, 16)", "cdiv(M, 16)"],
                                 [16, 16], sizes, ("float", "16"))
    a, b = _operands(7, M_, K_, N_)
    want = a.astype(np.float64) @ b.astype(np.float64)
    for i, c in enumerate(cands):
        res = batch.run(i, [a.reshape(-1).copy(), b.reshape(-1).copy(), np.full(M_ * N_, np.nan, np.float32), M_, N_, K_],
                        [_ev(g, sizes) for g in c.launch["grid"]], [_ev(x, sizes) for x in c.launch["block"]])
        assert np.allclose(res[2].reshape(M_, N_), want, rtol=1e-4, atol=1e-4), c.description


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_siboehm_s_cache_blocking_with_guards_through_a_named_position_is_read_back(tmp_path):
    """Round F's siboehm kernel 3 with bounds: one-dimensional blocks split `threadIdx.x / BS`, pointers advanced,
    fills guarded by `bool rowOk = cRow * BS + threadRow < M` (inlined, then named once: passes.name_compound_guards),
    alpha and beta; the tiles (the kernel's position parts given back by matmul._part_of) compute alpha A B + beta C."""
    sizes = {"M": M_, "N": N_, "K": K_}
    cands, batch, _ = _tiles_run(tmp_path, "probe_f/f03_siboehm_smem.cu", ["cdiv(M, 32)", "cdiv(N, 32)"], [1024], sizes,
                                 ("32",), {"alpha": 1, "beta": 0})
    a, b = _operands(8, M_, K_, N_)
    c0 = np.random.default_rng(9).standard_normal((M_, N_)).astype(np.float32)
    want = 1.5 * (a.astype(np.float64) @ b.astype(np.float64)) - 0.5 * c0
    for i, c in enumerate(cands):
        res = batch.run(i, [M_, N_, K_, 1.5, a.reshape(-1).copy(), b.reshape(-1).copy(), -0.5, c0.reshape(-1).copy()],
                        [_ev(g, sizes) for g in c.launch["grid"]], [_ev(x, sizes) for x in c.launch["block"]])
        assert np.allclose(res[7].reshape(M_, N_), want, rtol=1e-4, atol=1e-4), c.description


def test_a_position_is_named_only_where_none_of_its_parts_changes():
    from kernelpro.optimizer.restructure.passes import name_compound_guards
    k = """__global__ void g(float* y, int M) {
  const int br = blockIdx.x;
  int tr = threadIdx.x / 32;
  if (br * 32 + tr < M) y[br * 32 + tr] = 1.f;
}"""
    got = name_compound_guards(k, "k.cu", "g")
    assert got is not None and "const int kp_pos0 = br * 32 + tr;" in got and "if (kp_pos0 < M)" in got
    assert name_compound_guards(k.replace("if (br", "tr += 1; if (br"), "k.cu", "g") is None  # tr moves
    assert name_compound_guards(k.replace("br * 32 + tr < M", "tr < M"), "k.cu", "g") is None  # one part alone


def test_a_position_with_a_loop_counter_in_it_is_not_named_before_the_loop():
    """`cRow * BS + threadRow + i * 8 < M` inside `for (int i ...)`: naming it before the loop would read an `i` not
    yet declared (found by the second reading); only coordinates, parameters and constants are named."""
    from kernelpro.optimizer.restructure.passes import name_compound_guards
    k = """__global__ void g(float* y, int M) {
  const int br = blockIdx.x;
  const int tr = threadIdx.x / 32;
  for (int i = 0; i < 4; ++i) if (br * 32 + tr + i * 8 < M) y[br * 32 + tr + i * 8] = 1.f;
}"""
    assert name_compound_guards(k, "k.cu", "g") is None


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_pmpp_s_coarsened_tiled_product_is_read_at_its_first_output_and_tiled(tmp_path):
    """PMPP's thread coarsening of the tiled product (blind rounds F and G): `float Pvalue[COARSE]`, every use
    `Pvalue[c]` in loops `for (c = 0; c < COARSE; ++c)`, one of them around the second tile's staging and the sum.
    Read at its first output (matmul.first_of_coarsened: each loop its body for c = 0, `int col = colStart + c *
    TILE` written into its uses), the tiled loop unstages to a plain product; the tiles, which set their own launch,
    compute every output of the coarsened kernel, at sizes that are no multiple of its 32 x 128 block tile."""
    sizes = {"M": M_, "N": N_, "K": K_}
    cands, batch, got = _tiles_run(tmp_path, "probe_g/g12_tiled_coarsened.cu", ["cdiv(N, 128)", "cdiv(M, 32)"],
                                   [32, 32], sizes)
    assert "matmul-coalesce" not in got  # the remap keeps the launch, which covers 1 in 4 outputs of the reading
    a, b = _operands(11, M_, K_, N_)
    want = a.astype(np.float64) @ b.astype(np.float64)
    for i, c in enumerate(cands):
        res = batch.run(i, [a.reshape(-1).copy(), b.reshape(-1).copy(), np.full(M_ * N_, np.nan, np.float32), M_, N_, K_],
                        [_ev(g, sizes) for g in c.launch["grid"]], [_ev(x, sizes) for x in c.launch["block"]])
        assert np.allclose(res[2].reshape(M_, N_), want, rtol=1e-4, atol=1e-4), c.description
    w = 45
    cands, batch, _ = _tiles_run(tmp_path, "probe_f/f30_pmpp_coarsened_tiled.cu", ["cdiv(width, 64)", "cdiv(width, 16)"],
                                 [16, 16], {"width": w})
    a, b = _operands(12, w, w, w)
    want = a.astype(np.float64) @ b.astype(np.float64)
    for i, c in enumerate(cands):
        res = batch.run(i, [a.reshape(-1).copy(), b.reshape(-1).copy(), np.full(w * w, np.nan, np.float32), w],
                        [_ev(g, {"width": w}) for g in c.launch["grid"]], [_ev(x, {"width": w}) for x in c.launch["block"]])
        assert np.allclose(res[2].reshape(w, w), want, rtol=1e-4, atol=1e-4), c.description


def test_an_array_of_sums_is_read_at_its_first_output_only_where_each_use_is_at_its_loop_s_counter():
    from kernelpro.optimizer.restructure.matmul import first_of_coarsened
    head = "__global__ void g(const float* A, const float* B, float* C, int n) {\n  float acc[4];\n"
    ok = head + ("  for (int c = 0; c < 4; ++c) acc[c] = 0.f;\n  for (int k = 0; k < n; ++k)\n"
                 "    for (int c = 0; c < 4; ++c) { int col = threadIdx.x + c * 32; if (col < n) acc[c] += A[k] * B[k * n + col]; }\n"
                 "  for (int c = 0; c < 4; ++c) { int col = threadIdx.x + c * 32; if (col < n) C[col] = acc[c]; }\n}\n")
    got = first_of_coarsened(parse_source(ok, "g.cu"), "g")
    assert got is not None and "acc[" not in got and "float acc;" in got and "B[k * n + threadIdx.x]" in got
    # the stores after the loops name the same position: the block keeps its braces (both declare col)
    assert "if (threadIdx.x < n) C[threadIdx.x] = acc;" in got
    bad = [
        ok.replace("C[col] = acc[c];", "C[col] = acc[c] + acc[(c + 1) % 4];"),  # another element than its own
        ok.replace("c < 4; ++c) { int col = threadIdx.x + c * 32; if (col < n) C",
                   "c < 3; ++c) { int col = threadIdx.x + c * 32; if (col < n) C"),
        ok.replace("for (int c = 0; c < 4; ++c) acc[c] = 0.f;", "acc[0] = acc[1] = acc[2] = acc[3] = 0.f;"),
        ok.replace("acc[c] += A[k]", "c += 0; acc[c] += A[k]"),  # the counter written in the loop
        # a second reading's reproducers: c a batch, not an output column (slices 1.. another product, which the
        # tiles of slice 0's product never wrote)
        ok.replace("acc[c] += A[k] * B[k * n + col]", "acc[c] += A[c * n + k] * B[k * n + col]"),
        ok.replace("int col = threadIdx.x + c * 32; if (col < n) acc[c]", "int off = c * n * n; int col = threadIdx.x; "
                   "if (col < n) acc[c]").replace("B[k * n + col]", "B[off + k * n + col]"),
        ok.replace("{ int col = threadIdx.x + c * 32; if (col < n) acc[c]",
                   "{ if (c == 1) break; int col = threadIdx.x + c * 32; if (col < n) acc[c]"),
    ]
    for b in bad:
        assert b != ok and first_of_coarsened(parse_source(b, "g.cu"), "g") is None, b


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_round_h_s_tiled_products_with_a_block_wide_tile_and_a_zero_in_a_local_are_read_back(tmp_path):
    """Blind round H: a tiled product whose tile is the block's width at run time (`const int TS = blockDim.x;`,
    dynamic shared memory cut into As and Bs by it) read with the launch's block as numbers; a half-precision one
    whose fills choose `hzero`, a local set once to `__float2half(0.0f)` (unstage._set_once). The tiles they become
    compute the product (alpha A B + beta C; A B in half with float sums)."""
    sizes = {"M": M_, "N": N_, "K": K_}
    cands, batch, _ = _tiles_run(tmp_path, "probe_h/h17_dynsmem_tiled.cu", ["cdiv(N, 16)", "cdiv(M, 16)"], [16, 16],
                                 sizes, (), {"alpha": 1, "beta": 0}, shared=2048)
    a, b = _operands(13, M_, K_, N_)
    c0 = np.random.default_rng(14).standard_normal((M_, N_)).astype(np.float32)
    want = 1.5 * (a.astype(np.float64) @ b.astype(np.float64)) + 0.5 * c0
    for i, c in enumerate(cands):
        res = batch.run(i, [M_, N_, K_, 1.5, a.reshape(-1).copy(), b.reshape(-1).copy(), 0.5, c0.reshape(-1).copy()],
                        [_ev(g, sizes) for g in c.launch["grid"]], [_ev(x, sizes) for x in c.launch["block"]],
                        shared_bytes=int(c.launch.get("shared_bytes") or 0))
        assert np.allclose(res[7].reshape(M_, N_), want, rtol=1e-4, atol=1e-4), c.description
    cands, batch, _ = _tiles_run(tmp_path, "probe_h/h22_half_tiled.cu", ["cdiv(N, 16)", "cdiv(M, 16)"], [16, 16], sizes)
    a, b = (x.astype(np.float16) for x in _operands(15, M_, K_, N_))
    want = a.astype(np.float64) @ b.astype(np.float64)
    for i, c in enumerate(cands):
        res = batch.run(i, [a.reshape(-1).copy(), b.reshape(-1).copy(), np.zeros(M_ * N_, np.float16), M_, N_, K_],
                        [_ev(g, sizes) for g in c.launch["grid"]], [_ev(x, sizes) for x in c.launch["block"]])
        assert np.allclose(res[2].reshape(M_, N_).astype(np.float64), want, rtol=1e-2, atol=5e-2), c.description


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_round_h_s_dp4a_and_fmaf_coarsened_products_are_tiled_exactly(tmp_path):
    """Blind round H: an int8 GEMM on packed words, `acc = __dp4a(a[w], b[w], acc)` (passes.accumulating_calls reads
    it as `acc += __dp4a(a[w], b[w], 0)`, a sum of a function of two words the SIMT tiles add: exact in int32); and
    two columns a thread in `float acc[2]` with `if (col < n) acc[u] = fmaf(..)` inside the k loop (read at the
    first column, the column's guard hoisted out of the loop: passes.hoist_invariant_guards)."""
    rng = np.random.default_rng(21)
    K4 = 56  # 224 int8 values a row
    a8 = rng.integers(-127, 128, (M_, 4 * K4)).astype(np.int8)
    b8 = rng.integers(-127, 128, (N_, 4 * K4)).astype(np.int8)  # B transposed: a row per output column
    sizes = {"M": M_, "N": N_, "K": 4 * K4}
    cands, batch, got = _tiles_run(tmp_path, "probe_h/h15_dp4a_int8.cu", ["cdiv(N, 16)", "cdiv(M, 16)"], [16, 16],
                                   sizes)
    assert "matmul-wmma" not in got and "matmul-library" not in got  # a function of the words: no multiplier takes it
    want = a8.astype(np.int64) @ b8.astype(np.int64).T
    for i, c in enumerate(cands):
        res = batch.run(i, [a8.view(np.int32).reshape(-1).copy(), b8.view(np.int32).reshape(-1).copy(),
                            np.zeros(M_ * N_, np.int32), M_, N_, 4 * K4],
                        [_ev(g, sizes) for g in c.launch["grid"]], [_ev(x, sizes) for x in c.launch["block"]])
        assert np.array_equal(res[2].reshape(M_, N_).astype(np.int64), want), c.description
    sizes = {"m": M_, "n": N_, "k": K_}
    cands, batch, _ = _tiles_run(tmp_path, "probe_h/h03_fmaf_coarsen2.cu", ["cdiv(n, 64)", "cdiv(m, 16)"], [32, 16],
                                 sizes)
    a, b = _operands(22, M_, K_, N_)
    want = a.astype(np.float64) @ b.astype(np.float64)
    for i, c in enumerate(cands):
        res = batch.run(i, [M_, N_, K_, a.reshape(-1).copy(), b.reshape(-1).copy(), np.full(M_ * N_, np.nan, np.float32)],
                        [_ev(g, sizes) for g in c.launch["grid"]], [_ev(x, sizes) for x in c.launch["block"]])
        assert np.allclose(res[5].reshape(M_, N_), want, rtol=1e-4, atol=1e-4), c.description


def test_a_guard_is_hoisted_out_of_a_loop_only_where_the_loop_cannot_change_it():
    from kernelpro.optimizer.restructure.passes import hoist_invariant_guards
    k = ("__global__ void g(const float* a, const float* b, float* c, int n, int k) {\n  int col = threadIdx.x;\n"
         "  float acc = 0.f;\n  for (int p = 0; p < k; ++p) {\n    const float av = a[p];\n"
         "    if (col < n) acc += av * b[p * n + col];\n  }\n  if (col < n) c[col] = acc;\n}\n")
    got = hoist_invariant_guards(k, "g.cu", "g")
    assert got is not None and got.index("if (col < n)") < got.index("for (int p")
    for bad in (k.replace("if (col < n) acc", "if (p < n) acc"),  # the counter
                k.replace("if (col < n) acc", "if (av < 1.f) acc"),  # a local of the loop
                k.replace("if (col < n) acc", "if (b[p] < 1.f) acc"),  # memory
                k.replace("const float av = a[p];", "const float av = a[p]; col += 1;"),  # written in the loop
                k.replace("acc += av * b[p * n + col];", "acc += av * b[p * n + col]; else acc = 0.f;")):
        assert hoist_invariant_guards(bad, "g.cu", "g") is None, bad


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_a_loop_unrolled_over_bumped_pointers_is_read_as_its_remainder_loop_and_tiled(tmp_path):
    """Blind round H's hand-unrolled product (`s += a[0] * b[0]; ... s += a[3] * b[3 * N]; a += 4; b += 4 * N;` then
    `s += *a * *b; ++a; b += N;` for the rest): four passes of the remainder's body do what one unrolled pass does
    (passes.drop_bumped_unrolled_loop follows the pointers' offsets), so the remainder loop alone is the product; the
    tiles compute it at a K that is no multiple of 4."""
    sizes = {"M": M_, "N": N_, "K": K_}
    cands, batch, _ = _tiles_run(tmp_path, "probe_h/h02_unroll4_ptrbump.cu", ["cdiv(N, 32)", "cdiv(M, 8)"], [32, 8],
                                 sizes)
    a, b = _operands(23, M_, K_, N_)
    want = a.astype(np.float64) @ b.astype(np.float64)
    for i, c in enumerate(cands):
        res = batch.run(i, [a.reshape(-1).copy(), b.reshape(-1).copy(), np.full(M_ * N_, np.nan, np.float32), M_, N_, K_],
                        [_ev(g, sizes) for g in c.launch["grid"]], [_ev(x, sizes) for x in c.launch["block"]])
        assert np.allclose(res[2].reshape(M_, N_), want, rtol=1e-4, atol=1e-4), c.description


def test_an_unrolled_loop_is_dropped_only_where_its_remainder_does_the_same():
    from kernelpro.optimizer.restructure.passes import drop_bumped_unrolled_loop
    k = ("__global__ void g(const float* A, const float* B, float* C, int N, int K) {\n"
         "  const float* a = A; const float* b = B; float s = 0.f; int k = 0;\n"
         "  for (; k + 1 < K; k += 2) { s += a[0] * b[0]; s += a[1] * b[N]; a += 2; b += 2 * N; }\n"
         "  for (; k < K; ++k) { s += *a * *b; ++a; b += N; }\n  C[0] = s;\n}\n")
    got = drop_bumped_unrolled_loop(k, "g.cu", "g")
    assert got is not None and "k += 2" not in got and "for (; k < K; ++k)" in got
    for bad in (k.replace("s += a[1] * b[N];", "s += a[1] * b[2 * N];"),  # another element
                k.replace("s += a[0] * b[0]; s += a[1] * b[N];", "s += a[1] * b[N]; s += a[0] * b[0];"),  # order
                k.replace("a += 2; b += 2 * N;", "a += 2; b += N;"),  # the pointer moved less
                k.replace("k + 1 < K; k += 2", "k + 2 < K; k += 2"),  # a condition for another step
                k.replace("s += a[1] * b[N];", "s += a[1] * b[N] * k;")):  # the counter read
        assert drop_bumped_unrolled_loop(bad, "g.cu", "g") is None, bad


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_an_unsigned_dp4a_product_keeps_its_overload_and_is_tiled_exactly(tmp_path):
    """`unsigned acc; acc = __dp4a(ua, ub, acc)` is read as `acc += __dp4a(ua, ub, 0u)` (a plain 0 made the call
    ambiguous and nothing compiled); the tiles sum unsigned bytes' products exactly."""
    rng = np.random.default_rng(31)
    K4 = 9
    a8 = rng.integers(0, 256, (M_, 4 * K4)).astype(np.uint8)
    b8 = rng.integers(0, 256, (N_, 4 * K4)).astype(np.uint8)
    sizes = {"M": M_, "N": N_, "K4": K4}
    cands, batch, _ = _tiles_run(tmp_path, "matmul_forms/dp4a_unsigned.cu", ["cdiv(N, 16)", "cdiv(M, 16)"], [16, 16],
                                 sizes)
    assert all("0u)" in c.source for c in cands)
    want = (a8.astype(np.int64) @ b8.astype(np.int64).T) % 2 ** 32
    for i, c in enumerate(cands):
        res = batch.run(i, [a8.view(np.uint32).reshape(-1).copy(), b8.view(np.uint32).reshape(-1).copy(),
                            np.zeros(M_ * N_, np.uint32), M_, N_, K4],
                        [_ev(g, sizes) for g in c.launch["grid"]], [_ev(x, sizes) for x in c.launch["block"]])
        assert np.array_equal(res[2].reshape(M_, N_).astype(np.int64), want), c.description


def _pv(att, v):
    """out[b, t, h, :] = att[b, h, t, :] @ v[b, :, h, :] for (B, NH, T, T) att and (B, T, NH, HS) v."""
    return np.einsum("bhts,bshd->bthd", att.astype(np.float64), v.astype(np.float64))


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
@pytest.mark.parametrize("name, grid, sizes", [
    # one grid row per (batch, head), `bh` split and also read itself: given back as b * NH + h (_batch_root)
    ("matmul_forms/attn_pv_bh_root.cu", ["cdiv(T * HS, 128)", "B * NH"], {"B": 2, "NH": 3, "T": 37, "HS": 5}),
    # the head on blockIdx.y and the batch on blockIdx.z, both guarded (round J)
    ("probe_j/j16_attn_pv_headgrid.cu", ["cdiv(T * HS, 128)", "NH", "B"], {"B": 2, "NH": 3, "T": 37, "HS": 5}),
    # the same unguarded: the head's count from the launch (NH), the batch's from the old grid's z alone
    ("matmul_forms/attn_pv_headgrid_unguarded.cu", ["cdiv(T * HS, 128)", "NH", 2], {"NH": 3, "T": 37, "HS": 5}),
])
def test_a_batch_over_two_grid_dimensions_becomes_digits_of_the_grid_s_z(tmp_path, name, grid, sizes):
    """A batch of block positions other than blockIdx.z alone (analysis/contraction.py's "blocks"): each part a
    digit of the tiled grid's z (matmul.block_digits), counted by its guard, by the parameter the old launch gives
    it, or, for the slowest part, by the old grid itself (matmul.batch_z), a root the kernel splits into two of them
    given back from them (matmul._batch_root); the tiles compute P V per head."""
    B, NH, T, HS = sizes.get("B", 2), sizes["NH"], sizes["T"], sizes["HS"]
    cands, batch, _ = _tiles_run(tmp_path, name, grid, [128], {k: v for k, v in sizes.items()})
    rng = np.random.default_rng(11)
    att, v = rng.standard_normal((B, NH, T, T)).astype(np.float32), rng.standard_normal((B, T, NH, HS)).astype(np.float32)
    want = _pv(att, v)
    ev = {**sizes, "B": B}
    args = [np.full(B * T * NH * HS, np.nan, np.float32), att.reshape(-1).copy(), v.reshape(-1).copy()]
    args += [B, NH, T, HS] if "B" in sizes else [NH, T, HS]
    for i, c in enumerate(cands):
        assert len(grid) < 3 or c.launch["grid"][2] != grid[2], c.launch  # the batch's whole count on z
        res = batch.run(i, [a.copy() if isinstance(a, np.ndarray) else a for a in args],
                        [_ev(g, ev) for g in c.launch["grid"]], [_ev(x, ev) for x in c.launch["block"]])
        assert np.allclose(res[0].reshape(B, T, NH, HS), want, rtol=1e-4, atol=1e-4), c.description


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_a_flat_index_split_with_the_head_size_a_quotient_is_a_batched_product(tmp_path):
    """Round M's llm.c-style P V (m07): `hs = C / NH`, the flat index split as d = idx % hs, h = (idx / hs) % NH,
    t = (idx / C) % T, b = idx / (T * C), V read from the packed (B, T, 3C) qkv buffer: the place `C` of t is
    read as hs * NH (analysis/contraction._exact_quotients), so (b, h) is the batch and the tiles compute it."""
    B, T, C, NH = 2, 37, 15, 3
    hs = C // NH
    sizes = {"B": B, "T": T, "C": C, "NH": NH}
    cands, batch, _ = _tiles_run(tmp_path, "probe_m/m07_attn_pv_packed.cu", ["cdiv(B*T*C, 128)"], [128], sizes)
    rng = np.random.default_rng(13)
    att = rng.standard_normal((B, NH, T, T)).astype(np.float32)
    qkv = rng.standard_normal((B, T, 3, NH, hs)).astype(np.float32)
    want = np.einsum("bhts,bshd->bthd", np.tril(att.astype(np.float64)), qkv[:, :, 2].astype(np.float64))
    for i, c in enumerate(cands):
        res = batch.run(i, [np.full(B * T * C, np.nan, np.float32), att.reshape(-1).copy(), qkv.reshape(-1).copy(),
                            B, T, C, NH], [_ev(g, sizes) for g in c.launch["grid"]], [_ev(x, sizes) for x in c.launch["block"]])
        assert np.allclose(res[0].reshape(B, T, NH, hs), want, rtol=1e-4, atol=1e-4), c.description


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_a_batch_folded_into_blockIdx_x_moves_to_the_grid_s_z(tmp_path):
    """Round J's bmm with the batch folded into blockIdx.x (`b = blockIdx.x / per_mat`, guarded `b >= nbatch`):
    the batch becomes the tiled grid's z, the flat (m, n) index is rebuilt from the tile's row and column, and
    the tiles compute every batch's product."""
    sizes = {"nbatch": 3, "M": M_, "N": N_, "K": K_}
    cands, batch, _ = _tiles_run(tmp_path, "probe_j/j10_bmm_foldx.cu", ["cdiv(M * N, 128) * nbatch"], [128], sizes)
    rng = np.random.default_rng(12)
    a, b = rng.standard_normal((3, M_, K_)).astype(np.float32), rng.standard_normal((3, K_, N_)).astype(np.float32)
    want = a.astype(np.float64) @ b.astype(np.float64)
    for i, c in enumerate(cands):
        assert c.launch["grid"][2] in ("(nbatch)", "((nbatch))"), c.launch
        res = batch.run(i, [a.reshape(-1).copy(), b.reshape(-1).copy(), np.full(3 * M_ * N_, np.nan, np.float32),
                            3, M_, N_, K_],
                        [_ev(g, sizes) for g in c.launch["grid"]], [_ev(x, sizes) for x in c.launch["block"]])
        assert np.allclose(res[2].reshape(3, M_, N_), want, rtol=1e-4, atol=1e-4), c.description


def test_a_batch_part_without_a_count_is_refused_with_its_name():
    """Two unguarded block positions whose counts no parameter gives: the tiles cannot rebuild both from one z."""
    text = """
__global__ void k(float* out, const float* a, const float* b, int T, int D) {
  const int h = blockIdx.y, g = blockIdx.z;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= T * T) return;
  const int r = i / T, c = i % T;
  float s = 0.f;
  for (int k = 0; k < D; ++k) s += a[((g * 7 + h) * T + r) * D + k] * b[((g * 7 + h) * D + k) * T + c];
  out[((g * 7 + h) * T + r) * T + c] = s;
}
"""
    k = parse_source(text, "k.cu").kernels[0]
    grid = ["cdiv(T * T, 128)", 7, 2]
    ctx = api.Context(kernel="k", path="k.cu", launch={"grid": grid, "block": [128]},
                      base_launch={"grid": grid, "block": [128]}, size_env={"small": {"T": 9, "D": 5}},
                      scalar_params={p.name: p.name for p in k.params if not p.is_pointer})
    plans, why = api.plans(text, ctx)
    assert "matmul-tiles" not in {p.name for p in plans}
    assert any("the batch coordinate" in w and "no count" in w for w in why), why


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
@pytest.mark.parametrize("name, grid, sizes", [
    ("probe_h/h20_covariance_full.cu", ["cdiv(m, 16)", "cdiv(m, 16)"], {"n": 23, "m": 19}),  # means in locals
    ("matmul_forms/cov_centered_inline.cu", ["cdiv(m, 16)", "cdiv(m, 16)"], {"n": 23, "m": 19}),  # read in the sum
])
def test_a_covariance_of_centered_columns_is_tiled_with_the_means_subtracted_as_loaded(tmp_path, name, grid, sizes):
    """`s += (x[k*m + j1] - mu1) * (x[k*m + j2] - mu2)` (analysis/contraction.py's Operand.shift): each operand
    centered by a value of its own row alone, subtracted as the tiles load it (so the zeros past the edges stay
    zeros); the tiles compute the covariance at sizes that are not multiples of them."""
    n, m = sizes["n"], sizes["m"]
    cands, batch, got = _tiles_run(tmp_path, name, grid, [16, 16], sizes)
    assert "matmul-wmma" not in got and "matmul-library" not in got  # (they multiply the elements as stored)
    rng = np.random.default_rng(13)
    x = (rng.standard_normal((n, m)) + 3).astype(np.float32)
    mean = x.mean(0).astype(np.float32)
    xc = x.astype(np.float64) - mean
    want = xc.T @ xc / (n - 1)
    k = parse_source(open(os.path.join(os.path.dirname(HERE), name)).read()).kernels[0]
    vals = {"data": x, "x": x, "mean": mean}
    for i, c in enumerate(cands):
        args = [vals[p.name].reshape(-1).copy() if p.name in vals else
                np.full(m * m, np.nan, np.float32) if p.is_pointer else sizes[p.name] for p in k.params]
        res = batch.run(i, args, [_ev(g, sizes) for g in c.launch["grid"]], [_ev(b, sizes) for b in c.launch["block"]])
        out = [j for j, p in enumerate(k.params) if p.name == "cov"][0]
        assert np.allclose(res[out].reshape(m, m), want, rtol=1e-4, atol=1e-4), c.description


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_a_product_of_operands_shifted_by_scalars_is_tiled_exactly(tmp_path):
    """Zero points subtracted from both operands (`(a[..] - za) * (b[..] - zb)`), a scalar shift each."""
    sizes = {"M": M_, "N": N_, "K": K_}
    cands, batch, _ = _tiles_run(tmp_path, "matmul_forms/centered_scalar.cu", ["cdiv(N, 16)", "cdiv(M, 16)"], [16, 16],
                                 sizes, scalars={"za": 0.5, "zb": -1.25})
    a, b = _operands(14, M_, K_, N_)
    want = (a.astype(np.float64) - 0.5) @ (b.astype(np.float64) + 1.25)
    for i, c in enumerate(cands):
        res = batch.run(i, [a.reshape(-1).copy(), b.reshape(-1).copy(), np.full(M_ * N_, np.nan, np.float32),
                            M_, N_, K_, 0.5, -1.25],
                        [_ev(g, sizes) for g in c.launch["grid"]], [_ev(x, sizes) for x in c.launch["block"]])
        assert np.allclose(res[2].reshape(M_, N_), want, rtol=1e-4, atol=1e-4), c.description


def test_a_shift_that_is_not_the_operand_s_own_is_refused():
    """The mean of the other operand's column (`(x[k*m + i] - mean[j]) * (x[k*m + j] - mean[i])`) is not a value
    of the operand's own row: no tiles (they would subtract the wrong mean), and the reason names it."""
    from kernelpro.profilers.analysis.contraction import recognise
    text = open(os.path.join(HERE, "cov_centered_inline.cu")).read().replace(
        "(x[k * m + j] - mean[j]) * (x[k * m + i] - mean[i])", "(x[k * m + j] - mean[i]) * (x[k * m + i] - mean[j])")
    src = parse_source(text, "k.cu")
    found = recognise(src, "cov_inline")
    assert not found.products
    assert any("is not a value of the operand's own row" in r.reason for r in found.refused), found.refused


_PV = """
__global__ void pv(float* out, const float* att, const float* v, const float* scale, const float* mean, int B, int NH,
                   int T, int HS, int b0, float za) {
  HEAD
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= T * HS) return;
  const int t = e / HS, d = e % HS;
  float acc = 0.f;
  for (int t2 = 0; t2 < T; ++t2) acc += att[((b * NH + h) * T + t) * T + t2] * v[((b * T + t2) * NH + h) * HS + d];
  out[((b * T + t) * NH + h) * HS + d] = STORE;
}
"""


def _tile_plans(text, grid, sizes, block=(128,)):
    k = parse_source(text, "k.cu").kernels[0]
    ctx = api.Context(kernel=k.name, path="k.cu", launch={"grid": grid, "block": list(block)},
                      base_launch={"grid": grid, "block": list(block)}, size_env={"small": sizes},
                      scalar_params={p.name: p.name for p in k.params if not p.is_pointer})
    plans, why = api.plans(text, ctx)
    return {p.name: p for p in plans}, why


@pytest.mark.parametrize("head, store, grid, said", [
    # the grid's z is the whole batch in the tiles: a read of blockIdx.z besides the batch's own definition
    ("const int h = blockIdx.y, b = blockIdx.z;", "acc * scale[blockIdx.z]", ["cdiv(T * HS, 128)", "NH", "B"],
     "reads `blockIdx.z` outside the output's coordinates"),
    # the head count read from the grid, which the tiles change
    ("const int h = blockIdx.y, b = blockIdx.z;", "acc * (float)gridDim.y", ["cdiv(T * HS, 128)", "NH", "B"],
     "reads `gridDim.y`"),
    # a part that does not count from 0 (an offset batch): no digit of the new z
    ("const int h = blockIdx.y, b = blockIdx.z + b0;", "acc", ["cdiv(T * HS, 128)", "NH", "B - b0"],
     "block positions counted from 0"),
    # a root split into three digits whose middle one the kernel never names: refused when plans are made (the
    # replay cannot give it back), not at every build
    ("const int bhx = blockIdx.y; const int b = bhx / (NH * 2), h = bhx % NH; if (b >= B) return;",
     "acc + scale[bhx]", ["cdiv(T * HS, 128)", "B * NH * 2"], "`bhx` is a thread index besides"),
])
def test_a_batch_of_block_positions_the_tiles_cannot_rebuild_is_refused_with_the_reason(head, store, grid, said):
    text = _PV.replace("HEAD", head).replace("STORE", store)
    got, why = _tile_plans(text, grid, {"B": 2, "NH": 3, "T": 37, "HS": 5, "b0": 1})
    assert "matmul-tiles" not in got and "matmul-3xtf32" not in got, list(got)
    assert any(said in w for w in why), why


def test_a_batch_part_counted_by_a_local_in_the_parameters_is_tiled():
    """`const int NH = C / HS; h = blockIdx.y % NH; b = blockIdx.y / NH;` (the count a local written in the
    parameters): the tiles' z is B * (C / HS)."""
    text = _PV.replace("int NH,", "int C,").replace(
        "HEAD", "const int NH = C / HS; const int h = blockIdx.y % NH, b = blockIdx.y / NH; if (b >= B) return;"
    ).replace("STORE", "acc")
    got, why = _tile_plans(text, ["cdiv(T * HS, 128)", "B * (C / HS)"], {"B": 2, "C": 15, "T": 37, "HS": 5, "b0": 0})
    assert "matmul-tiles" in got, why
    c = got["matmul-tiles"].build(got["matmul-tiles"].space[0])
    assert c.launch["grid"][2] == "((B)) * (((C) / (HS)))", c.launch


def test_a_batch_past_the_grid_s_z_limit_is_refused():
    text = _PV.replace("HEAD", "const int h = blockIdx.y, b = blockIdx.z; if (b >= B || h >= NH) return;").replace(
        "STORE", "acc")
    got, why = _tile_plans(text, ["cdiv(T * HS, 128)", "NH", "B"], {"B": 4096, "NH": 32, "T": 37, "HS": 5, "b0": 0})
    assert "matmul-tiles" not in got
    assert any("more than the grid's z takes" in w for w in why), why


_CENT = """
__global__ void cg(const float* a, const float* b, float* c, float* mean, int M, int N, int K, float za, float zb) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= M || q >= N) return;
  PRE
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += (a[r * K + k] - SHIFT) * (b[k * N + q] - zb);
  c[r * N + q] = acc;
}
"""


@pytest.mark.parametrize("pre, shift", [("za++;", "za"), ("za = za * 2.0f;", "za"), ("mean++;", "mean[r]"),
                                        ("if (M > 30) mean += 3;", "mean[r]")])
def test_a_shift_the_kernel_changes_before_the_sum_is_refused(pre, shift):
    """The tiles read the shift before the kernel's own code runs: a scalar or a pointer it changes is refused."""
    from kernelpro.profilers.analysis.contraction import recognise
    found = recognise(parse_source(_CENT.replace("PRE", pre).replace("SHIFT", shift), "k.cu"), "cg")
    assert not found.products, [p.terms for p in found.products]
    assert any("fixed in the kernel" in r.reason for r in found.refused), [r.reason for r in found.refused]


def test_centered_tiles_vary_only_knobs_that_change_them_and_say_what_they_load():
    """Centered operands are loaded one element at a time: no 16-byte or cp.async settings in the space (they would
    build the same source), and no description claims them."""
    got, why = _tile_plans(_CENT.replace("PRE", "").replace("SHIFT", "mean[r]"), ["cdiv(N, 16)", "cdiv(M, 16)"],
                           {"M": 37, "N": 53, "K": 29}, (16, 16))
    space = got["matmul-tiles"].space
    assert all(int(x.get("vec", 1)) == 1 for x in space), space[:3]
    for knobs in space[:6]:
        d = got["matmul-tiles"].build(knobs).description
        assert "16 bytes" not in d and "cp.async" not in d, d


def test_a_function_of_both_operands_is_not_taken_for_a_centered_pair():
    """`(a - b) * (b - a)`: each factor's subtrahend is the other operand, not a shift: still a combine."""
    from kernelpro.profilers.analysis.contraction import recognise
    text = _CENT.replace("PRE", "").replace("(a[r * K + k] - SHIFT) * (b[k * N + q] - zb)",
                                           "(a[r * K + k] - b[k * N + q]) * (b[k * N + q] - a[r * K + k])")
    found = recognise(parse_source(text, "k.cu"), "cg")
    assert found.products and found.products[0].combine and not found.products[0].shifted


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_a_complex_product_in_planar_storage_sums_every_term_in_the_tiles(tmp_path):
    """Round F's planar complex GEMM (`re += ar*br - ai*bi; im += ar*bi + ai*br;`, stored to Cr and Ci at one
    position): one Contraction with two sums (Contraction.sums), the tiles summing its four products and the kernel's
    own code adding them up; tensor cores refused with the reason."""
    sizes = {"M": M_, "N": N_, "K": K_}
    cands, batch, got = _tiles_run(tmp_path, "probe_f/f23_complex_split_gemm.cu", ["cdiv(N, 16)", "cdiv(M, 16)"],
                                   [16, 16], sizes)
    assert "matmul-wmma" not in got and "matmul-3xtf32" not in got
    ar, br = _operands(15, M_, K_, N_)
    ai, bi = _operands(16, M_, K_, N_)
    a = ar.astype(np.float64) + 1j * ai.astype(np.float64)
    want = a @ (br.astype(np.float64) + 1j * bi.astype(np.float64))
    for i, c in enumerate(cands):
        res = batch.run(i, [ar.reshape(-1).copy(), ai.reshape(-1).copy(), br.reshape(-1).copy(), bi.reshape(-1).copy(),
                            np.full(M_ * N_, np.nan, np.float32), np.full(M_ * N_, np.nan, np.float32), M_, N_, K_],
                        [_ev(g, sizes) for g in c.launch["grid"]], [_ev(x, sizes) for x in c.launch["block"]])
        assert np.allclose(res[4].reshape(M_, N_), want.real, rtol=1e-4, atol=1e-4), c.description
        assert np.allclose(res[5].reshape(M_, N_), want.imag, rtol=1e-4, atol=1e-4), c.description


def test_sums_stored_at_different_positions_are_not_merged():
    """Two named sums a row apart (a small tile per thread) stay matmul.one_output's: not one Contraction of two
    sums (their stores are at other positions)."""
    from kernelpro.profilers.analysis.contraction import recognise
    text = open(_path("two_outputs")).read()
    found = recognise(parse_source(text, "k.cu"), parse_source(text, "k.cu").kernels[0].name)
    assert not any(p.sums for p in found.products)


@pytest.mark.parametrize("change, said", [
    # two sums of other types: the tiles sum in one type (found by a second reading: an int tile for float operands)
    (("float re = 0.0f, im = 0.0f;", "float re = 0.0f; double im = 0.0;"), "2 sums of products"),
    # the second sum stored over an operand
    (("Ci[row * N + col] = im;", "Ai[row * N + col] = im;"), "2 sums of products"),
    # a weight along k multiplying a product
    (("re += ar * br - ai * bi;", "re += ar * br * (k < 8 ? 1.0f : 0.5f) - ai * bi;"), "changes with k"),
])
def test_sums_in_one_loop_merge_only_with_one_type_outputs_apart_from_operands_and_no_weight_along_k(change, said):
    from kernelpro.profilers.analysis.contraction import recognise
    text = open(os.path.join(os.path.dirname(HERE), "probe_f", "f23_complex_split_gemm.cu")).read()
    assert change[0] in text
    src = parse_source(text.replace(*change), "k.cu")
    found = recognise(src, "cgemm_planar")
    assert not any(p.sums for p in found.products), [p.sums for p in found.products]
    assert any(said in r.reason for r in found.refused), [r.reason for r in found.refused]


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_small_wmma_tiles_for_products_of_a_few_hundred_a_side(tmp_path):
    """32 x 32, 32 x 64 and 64 x 32 WMMA tiles of 16 x 16, 16 x 32 and 32 x 16 warp tiles (a product of 256 x 384
    gets 24 blocks from 64 x 64 tiles on 132 SMs, 96 from 32 x 32): first in the space where the spec's sizes are
    that small, and computing the bf16 product the kernel as written computes."""
    from spec_emu import host_blanked

    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks", "suite",
                        "gemm_bf16", "naive.cu")
    text = open(path).read()
    k = parse_source(text, path).kernels[0]
    M, N, K = 37, 45, 29
    launch = {"grid": ["cdiv(N, 16)", "cdiv(M, 16)"], "block": [16, 16]}
    ctx = api.Context(kernel=k.name, path=path, launch=dict(launch), base_launch=dict(launch),
                      size_env={"small": {"M": M, "N": N, "K": K}}, scalar_params={p.name: p.name for p in k.params
                                                                                   if not p.is_pointer})
    plan = next(p for p in api.plans(text, ctx)[0] if p.name == "matmul-wmma")
    assert plan.space[0]["bm"] == plan.space[0]["bn"] == 32 and plan.heads == [plan.space[0]]
    knobs = [{"bm": 32, "bn": 32, "bk": 32, "stages": 2, "wm": 16, "wn": 16},
             {"bm": 32, "bn": 64, "bk": 32, "stages": 1, "wm": 16, "wn": 32},
             {"bm": 64, "bn": 32, "bk": 32, "stages": 2, "wm": 32, "wn": 16}]
    cands = [plan.build(kn) for kn in knobs]
    assert compile_each(path, [(k.name, c.source, ()) for c in cands], CompileOptions(arch="sm_90")) == [None] * 3
    batch = Batch([(host_blanked(text), k.name)] + [(host_blanked(c.source), k.name) for c in cands], str(tmp_path))
    rng = np.random.default_rng(1)
    bf = lambda x: (np.asarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint16)  # noqa: E731
    a, b = bf(rng.standard_normal(M * K)), bf(rng.standard_normal(K * N))
    env = {"M": M, "N": N, "K": K}
    outs = [batch.run(i, [np.zeros(M * N, np.uint16), a.copy(), b.copy(), M, N, K], [_ev(g, env) for g in ln["grid"]],
                      [_ev(x, env) for x in ln["block"]], shared_bytes=int(ln.get("shared_bytes") or 0))[0]
            for i, ln in enumerate([launch] + [c.launch for c in cands])]
    for c, o in zip(cands, outs[1:]):
        assert np.array_equal(o, outs[0]), c.description
