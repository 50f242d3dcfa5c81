"""Histograms straight into global memory (tests/hist/: CUDA by Example's, the CUDA sample's 256 bins from
packed words, an image's luminance with 2-D blocks, float binning with the count a parameter, the textbook's
letters, keys modulo a count in a grid-stride loop, a weighted one with float bins) get `private-bins`
(profilers/analysis/histogram.py, optimizer/restructure/histogram.py): every setting of the plan compiled with
nvcc and run in the CPU emulator against numpy's bincount at sizes off the block; the negatives get no plan and
say why."""
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

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hist")
GXX = shutil.which("g++")
N = 1000 - 3
W, H = 37, 29  # the image: off the 16 x 16 block


def _cases():
    rng = np.random.default_rng(27)
    byte = rng.integers(0, 256, N).astype(np.uint8)
    words = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    rgb = rng.integers(0, 256, H * W * 3).astype(np.uint8)
    f = rgb.astype(np.float32).reshape(-1, 3)
    lum = np.float32(0.299) * f[:, 0] + np.float32(0.587) * f[:, 1] + np.float32(0.114) * f[:, 2]
    centres = ((rng.integers(0, 10, N) + 0.5) / 10).astype(np.float32)
    centres[::7] = np.float32(1.5)  # out of range: not counted
    text = rng.choice(np.frombuffer(b"abcdefghijklmnopqrstuvwxyz ABZ.", np.uint8), N).astype(np.int8)
    letters = text[(text >= ord("a")) & (text <= ord("z"))].astype(int) - ord("a")
    keys = rng.integers(0, 10**6, N).astype(np.int32)
    x, w = rng.uniform(-0.1, 1.1, N).astype(np.float32), rng.standard_normal(N).astype(np.float32)
    img2 = rng.integers(0, 256, N).astype(np.uint8)
    return {  # name -> (grid, block, args, bins argument, reference, spec sizes)
        "joint2d": (["cdiv(n, 128)"], [128], [byte, img2, N, 16, np.zeros(256, np.uint32)], 4,
                    np.bincount((byte.astype(int) * 16 >> 8) * 16 + (img2.astype(int) * 16 >> 8), minlength=256),
                    {"n": N, "nbins": 16}),
        "histo_cbe": (["8"], [256], [byte, N, np.zeros(256, np.uint32)], 2, np.bincount(byte, minlength=256), {}),
        "histogram256_words": (["5"], [128], [np.zeros(256, np.uint32), words, N], 0,
                               np.bincount(words.view(np.uint8), minlength=256), {}),
        "luminance2d": (["cdiv(width, 16)", "cdiv(height, 16)"], [16, 16], [rgb, np.zeros(256, np.uint32), W, H], 1,
                        np.bincount(np.minimum(lum.astype(np.int32), 255), minlength=256), {"width": W, "height": H}),
        "float_bins": (["cdiv(n, 128)"], [128], [centres, np.zeros(10, np.int32), N, 0.0, 1.0, 10], 1,
                       np.bincount((centres[centres < 1] * 10).astype(int), minlength=10), {"n": N, "nbins": 10}),
        "pmpp_text": (["cdiv(length, 64)"], [64], [text, N, np.zeros(7, np.uint32)], 2,
                      np.bincount(letters // 4, minlength=7), {"length": N}),
        "keys_mod_gs": (["cdiv(n, 256)"], [256], [keys, np.zeros(37, np.int32), N, 37], 1,
                        np.bincount(keys % 37, minlength=37), {"n": N, "num_bins": 37}),
        "weighted": (["cdiv(n, 96)"], [96], [x, w, np.zeros(64, np.float32), N], 2,
                     np.bincount(np.clip((x * 64).astype(np.int32), 0, 63), weights=w, minlength=64), {"n": N}),
    }


CASES = _cases()


def _ev(e, env):
    return int(eval(str(e).replace("/", "//"), {"cdiv": lambda a, b: -(-a // b), "min": min}, dict(env)))


def _plans(name, sizes=None, launch=None):
    path = os.path.join(HERE, f"{name}.cu")
    text = open(path).read()
    k = parse_source(text).kernels[0]
    if launch is None:
        grid, block, _, _, _, env = CASES[name]
        launch, sizes = {"grid": grid, "block": block}, env if sizes is None else sizes
    ctx = api.Context(kernel=k.name, path=path, launch=launch, base_launch=launch, size_env={"small": sizes or {}},
                      scalar_params={p.name: p.name for p in k.params if not p.is_pointer})
    return text, k, api.plans(text, ctx)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """name -> (kernel, [(setting, candidate)]), every setting of every spelling compiled in one nvcc batch."""
    out, items = {}, []
    for name in CASES:
        text, k, (plans, why) = _plans(name)
        plan = next((p for p in plans if p.name == "private-bins"), None)
        assert plan is not None, (name, why)
        out[name] = (text, k, [(s, plan.build(s)) for s in plan.space])
        items += [(k.name, c.source, ()) for _, c in out[name][2]]
    problems = compile_each(os.path.join(HERE, "histo_cbe.cu"), items, CompileOptions(arch="sm_90"))
    bad = [(i, p) for i, p in enumerate(problems) if p is not None]
    assert not bad, "\n".join("\n".join(p) for _, p in bad[:2])
    return out


def test_each_spelling_gets_private_bins_first_with_its_knobs(built):
    for name, (_, _, cands) in built.items():
        first, c = cands[0]
        assert "kp_bins[" in c.source and "__syncthreads" in c.source, name
        assert c.source.count("atomicAdd") >= 3, name  # private, past the copy, the flush
        assert any(s["waves"] for s, _ in cands), (name, [s for s, _ in cands])  # a wave of blocks as a knob
        assert any(s["copies"] > 1 for s, _ in cands), name  # per-warp copies: 256 bins or fewer fit
    assert built["histo_cbe"][2][0][1].launch["grid"] == ["min(8, 528)"]
    assert built["luminance2d"][2][0][1].launch["grid"] == ["min((cdiv(width, 16)) * (cdiv(height, 16)), 528)"]


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_every_setting_counts_like_numpy(built, tmp_path):
    runs = []
    for name, (text, k, cands) in built.items():
        grid, block, args, out, want, env = CASES[name]
        runs.append((name, "as written", text, k.name, grid))
        runs += [(name, str(s), c.source, k.name, c.launch["grid"]) for s, c in cands]
        # a wave smaller than the old grid: each block loops over several old blocks
        runs += [(name, f"{s} on 2 blocks", c.source, k.name, ["2"]) for s, c in cands if s["waves"]][:1]
    batch = Batch([(src, kname) for _, _, src, kname, _ in runs], str(tmp_path))
    for i, (name, what, _, _, grid) in enumerate(runs):
        _, block, args, out, want, env = CASES[name]
        got = batch.run(i, [a.copy() if isinstance(a, np.ndarray) else a for a in args],
                        [_ev(g, env) for g in grid], block)[out]
        assert np.allclose(got.astype(np.float64), want, rtol=1e-4, atol=1e-4), (name, what, got[:8], want[:8])


@pytest.mark.parametrize("name, sizes, says", [
    ("n_exch", {}, "atomicExch is not a commutative add"),
    ("n_cas", {}, "atomicCAS"),
    ("n_read", {}, "read or written in the kernel besides the atomics"),
    ("n_huge", {"table_size": 1 << 20}, "more than a block's 48 KB"),
    ("n_huge", {}, "no value in the spec's sizes"),
])
def test_no_private_bins_and_a_reason(name, sizes, says):
    _, _, (plans, why) = _plans(name, sizes, {"grid": ["cdiv(n, 256)"], "block": [256]})
    assert "private-bins" not in [p.name for p in plans]
    assert any(w.startswith("histogram:") and says in w for w in why), why


def test_a_sum_of_bounded_bins_needs_every_part_bounded():
    """`fb * nbins + mb` is below nbins * nbins only where mb is below nbins too: an int read as it is is not."""
    text = open(os.path.join(HERE, "joint2d.cu")).read().replace("int mb = (b[i] * nbins) >> 8;",
                                                                  "int mb = (int)b[i] + n;")
    path = os.path.join(HERE, "joint2d.cu")
    launch = {"grid": ["cdiv(n, 128)"], "block": [128]}
    plans, why = api.plans(text, api.Context(kernel="joint_hist", path=path, launch=launch, base_launch=launch,
                                             size_env={"small": {"n": 1000, "nbins": 16}},
                                             scalar_params={"n": "n", "nbins": "nbins"}))
    assert "private-bins" not in [p.name for p in plans]
    assert any(w.startswith("histogram:") and "nothing bounds" in w for w in why), why


@pytest.mark.parametrize("rel, says", [
    ("atomics/n_histogram.cu", "nothing bounds the bin index"),  # int keys straight as bins
    ("corpus/misc/histogram_shared.cu", "its own shared memory"),  # private bins already
])
def test_other_files_say_why(rel, says):
    path = os.path.join(os.path.dirname(HERE), rel)
    text = open(path).read()
    k = parse_source(text).kernels[0]
    launch = {"grid": ["cdiv(n, 128)"], "block": [128]}
    plans, why = api.plans(text, api.Context(kernel=k.name, path=path, launch=launch, base_launch=launch,
                                             size_env={"small": {"n": 1000}}))
    assert "private-bins" not in [p.name for p in plans]
    assert any(w.startswith("histogram:") and says in w for w in why), why


def test_a_ternary_clamp_bounds_the_bin_only_through_the_value_it_compares():
    """Round M's m20: `b = (f < 0) ? 0 : ((f >= (float)nbins) ? nbins - 1 : (int)f)` keeps b below nbins (the
    last branch runs only where f < nbins); the same clamp around another value bounds nothing."""
    from kernelpro.profilers.analysis.histogram import histogram
    from kernelpro.profilers.analysis.refusal import Refusal

    path = os.path.join(HERE, "..", "probe_m", "m20_histo_global_atomic.cu")
    text = open(path).read()
    got = histogram(parse_source(text, path), parse_source(text, path).kernel("histo_global"))
    assert not isinstance(got, Refusal) and "nbins" in str(got.count), got
    src = parse_source(text.replace(": (int)f);", ": (int)(f * 2.0f));"), path)  # not the value compared
    assert isinstance(histogram(src, src.kernel("histo_global")), Refusal)
    src = parse_source(text.replace("f >= (float)nbins", "f >= (float)n"), path)  # below n there: the larger count
    assert "max(nbins, n)" in histogram(src, src.kernel("histo_global")).count
