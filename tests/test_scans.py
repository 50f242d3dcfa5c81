"""Block scans in shared memory (profilers/analysis/scans.py, optimizer/restructure/scan.py): GPU Gems 3's
naive double-buffered scan and its work-efficient scan with bank-conflict-free offsets, an in-place
Hillis-Steele with a register between read and write, a Blelloch scan loading both halves, a flat
ping-pong buffer read one to the left; int and float, inclusive and exclusive, one block or many with the
block's total stored. Every knob setting of the block-scan plan is compiled with nvcc (one call) and run
in the CPU emulator (one build) against numpy's cumsum at sizes off the block; a race, a difference and
data-dependent steps get no plan and say why."""
from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

from compile_batch import compile_each
from emu_run import Batch

from kernelpro.optimizer.restructure import api
from kernelpro.profilers.analysis.scans import BlockScan, block_scan
from kernelpro.profilers.compile import CompileOptions
from kernelpro.profilers.source import parse_source

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scans")
GXX = shutil.which("g++")

# file -> (block, elements per block, n, shared bytes, input, output, block totals, inclusive of the input,
#          form, one block only)
CASES = {
    "gems_naive_exclusive": (128, 128, 128, 2 * 128 * 4, "g_idata", "g_odata", None, False, "Hillis-Steele", True),
    "gems_prescan_cf": (128, 256, 256, (256 + 8) * 4, "g_idata", "g_odata", None, False, "work-efficient", True),
    "inplace_block_sums": (256, 256, 1000, 0, "in", "out", "block_sums", True, "Hillis-Steele", False),
    "blelloch_strided": (128, 256, 1000, 0, "in", "out", "block_totals", False, "work-efficient", False),
    "pingpong_shifted": (256, 256, 700, 0, "d_in", "d_out", None, False, "Hillis-Steele", False),
    # two arrays swapped by pointer, the values stored through one (round K's spelling, and a second reading's)
    "pointer_fill": (256, 256, 700, 0, "g_in", "g_out", None, True, "Hillis-Steele", False),
}
NEGATIVE = {"n_no_barrier": "race", "n_difference": "`-`", "n_data_offsets": "loaded data", "n_data_select": "`select`",
            # two arrays swapped by pointer, an odd number of steps: the prefixes end in the other array (round K's
            # even count is tests/test_probe27_rewrites.py's)
            "pointer_swap_odd": "the prefixes end in `b`"}


def _kernel(name):
    text = open(os.path.join(HERE, name + ".cu")).read()
    return text, parse_source(text).kernels[0]


def _ctx(name, k, block, n, chunk, shared):
    launch = {"grid": [f"cdiv(n, {chunk})"], "block": [block], "shared_bytes": shared}
    scalar = next(p.name for p in k.params if not p.is_pointer)
    return api.Context(kernel=k.name, path=os.path.join(HERE, name + ".cu"), launch=launch, base_launch=launch,
                       size_env={"small": {"n": n, scalar: n}}, scalar_params={scalar: "n"})


def _reference(x, chunk, inclusive):
    out, sums = np.zeros_like(x), []
    for b in range(0, x.size, chunk):
        c = np.cumsum(x[b:b + chunk])
        out[b:b + chunk] = c if inclusive else np.concatenate([[0], c[:-1]])
        sums.append(c[-1])
    return out, np.array(sums)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Every case's plan, each knob setting built; all compiled in one nvcc call."""
    runs, plans = [], {}
    for name, (block, chunk, n, shared, *_rest) in CASES.items():
        text, k = _kernel(name)
        got, why = api.plans(text, _ctx(name, k, block, n, chunk, shared))
        plan = next((p for p in got if p.name == "block-scan"), None)
        plans[name] = (plan, why)
        runs.append((name, "as written", text, k.name, [block], shared))
        if plan is not None:
            for knobs in plan.space:
                c = plan.build(knobs)
                runs.append((name, c.description, c.source, k.name, c.launch["block"],
                             int(c.launch.get("shared_bytes") or 0)))
    problems = compile_each(os.path.join(HERE, "gems_naive_exclusive.cu"),
                            [(kn, src, ()) for _, _, src, kn, _, _ in runs[1:] if "kp_block_scan" in src],
                            CompileOptions(arch="sm_90"))
    return runs, plans, problems, str(tmp_path_factory.mktemp("scans"))


def test_the_analysis_reads_each_form():
    for name, (block, chunk, n, _, _, _, sums, incl, form, _) in CASES.items():
        text, k = _kernel(name)
        bs = block_scan(parse_source(text), k, block, {p.name: n for p in k.params if not p.is_pointer}, 2)
        assert isinstance(bs, BlockScan), (name, bs)
        assert bs.form.startswith(form) and bs.elements == chunk, (name, bs)
        assert (bs.total_to is not None) == (sums is not None), (name, bs.total_to)
        assert bs.elem in ("int", "float"), bs.elem
    text, k = _kernel("gems_prescan_cf")
    assert block_scan(parse_source(text), k, 128, {"n": 256}).shift == 5  # CONFLICT_FREE_OFFSET's padding


def test_every_form_gets_the_plan_and_each_setting_compiles(built):
    runs, plans, problems, _ = built
    for name, (plan, why) in plans.items():
        assert plan is not None, (name, why)
        assert plan.space[0] == {"per": 1}
    assert len(plans["inplace_block_sums"][0].space) == 3  # 256 threads: 1, 2 and 4 old threads per thread
    assert any("block's total" in w and "look-back" in w for w in plans["blelloch_strided"][1])
    for p in problems:
        assert p is None, "\n".join(p)


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_each_candidate_computes_the_prefix_sums(built):
    runs, _, _, work = built
    batch = Batch([(src, kn) for _, _, src, kn, _, _ in runs], work)
    for i, (name, what, src, kn, block, shared) in enumerate(runs):
        _, k = _kernel(name)
        b0, chunk, n, _, inp, out, sums, incl, _, single = CASES[name]
        rng = np.random.default_rng(3)
        floats = "float" in next(p.type_text for p in k.params if p.name == inp)
        x = rng.integers(0, 10, n).astype(np.float32 if floats else np.int32)
        grid = 1 if single else -(-n // chunk)
        args = []
        for p in k.params:
            if p.name == inp:
                args.append(x)
            elif p.is_pointer:
                args.append(np.zeros(n if p.name == out else grid, x.dtype))
            else:
                args.append(n)
        got = batch.run(i, args, [grid], block, shared_bytes=shared)
        want, totals = _reference(x.astype(np.int64), chunk, incl)
        names = [p.name for p in k.params]
        assert np.array_equal(got[names.index(out)].astype(np.int64), want), f"{name}: {what}"
        if sums is not None:
            assert np.array_equal(got[names.index(sums)].astype(np.int64), totals), f"{name}: {what}"


@pytest.mark.parametrize("name", sorted(NEGATIVE))
def test_near_misses_get_no_plan_and_a_reason(name):
    text, k = _kernel(name)
    block = 128 if name in ("n_difference", "pointer_swap_odd") else 256
    got, why = api.plans(text, _ctx(name, k, block, 1000, block, 0))
    assert "block-scan" not in [p.name for p in got]
    assert any(w.startswith("scan:") and NEGATIVE[name] in w for w in why), why


def test_the_other_passes_of_a_multi_block_scan_say_what_is_missing():
    path = os.path.join(os.path.dirname(HERE), "..", "benchmarks", "suite", "scan", "naive.cu")
    text = open(path).read()
    for kernel, block, grid, word in (("add_offsets", 512, "cdiv(n, 512)", "look-back"),
                                      ("scan_sums", 512, "1", "inside another loop")):
        launch = {"grid": [grid], "block": [block], "shared_bytes": 0}
        ctx = api.Context(kernel=kernel, path=path, launch=launch, base_launch=launch,
                          size_env={"small": {"n": 5000, "m": 10}})
        got, why = api.plans(text, ctx)
        assert "block-scan" not in [p.name for p in got]
        assert any(w.startswith("scan:") and word in w for w in why), (kernel, why)


def test_the_block_simulator_casts_like_c():
    """`static_cast<unsigned>(n)` and `(int)x` truncate, `static_cast<float>(i)` makes the next division a float one
    (round S's Hillis-Steele scan bounds its threads with the first)."""
    from kernelpro.profilers.analysis.blocksim import Block, Data

    assert Block._cast("unsigned", 413) == 413 and Block._cast("int", 2.7) == 2 and Block._cast("uint32_t", 2.5) == 2
    f = Block._cast("float", 3)
    assert isinstance(f, float) and f == 3.0
    d = Block._cast("int64_t", Data(7.9))
    assert isinstance(d, Data) and d.v == 7
    assert Block._cast("float", 2.5) == 2.5 and Block._cast("bool", 3) == 3  # (kept)
