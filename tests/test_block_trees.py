"""Whole-block shared-memory trees in the textbook forms (profilers/analysis/blocktree.py,
optimizer/restructure/blocktree.py): the interleaved tree (`tid % (2*s)`, `s *= 2`, or a bit mask and
`s <<= 1`), the halving tree (`tid < s`, `s >>= 1`, a literal start), sums, a max, a dot product, a
store per block or an atomic; the suite's sums. Each gets warp shuffles and several values per thread,
compiled with nvcc and run in the CPU emulator against numpy at sizes off the block; a tree that stops
early and a block that is no power of two get none and say why."""
from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

from compile_batch import compile_each
from emu_run import Batch

from kernelpro.optimizer.restructure import api
from kernelpro.profilers.analysis.blocktree import BlockReduction, block_reduction
from kernelpro.profilers.compile import CompileOptions
from kernelpro.profilers.source import parse_source

TESTS = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(os.path.dirname(TESTS), "benchmarks", "suite", "sum")
GXX = shutil.which("g++")
N = 1000 - 3


def _blocks(b):
    return -(-N // b)


# name -> (path, block, shared bytes, arrays in order {name: kind}, output, reference(inputs) -> output)
CASES = {
    "reduce0": (os.path.join(TESTS, "trees", "reduce0.cu"), 256, 1024, "interleaved",
                lambda x: np.add.reduceat(x, np.arange(0, N, 256))),
    "sum_literal": (os.path.join(TESTS, "trees", "sum_literal.cu"), 256, 0, "halving", lambda x: np.array([x.sum()])),
    "max_halving": (os.path.join(TESTS, "trees", "max_halving.cu"), 128, 0, "halving",
                    lambda x: np.maximum.reduceat(np.abs(x), np.arange(0, N, 128))),
    "bitmask_dot": (os.path.join(TESTS, "trees", "bitmask_dot.cu"), 64, 256, "interleaved", None),
    "suite_sum": (os.path.join(SUITE, "naive.cu"), 256, 0, "interleaved", lambda x: np.array([x.sum()])),
}


def _ctx(path, kernel, block, shared):
    launch = {"grid": [f"cdiv(n, {block})"], "block": [block], "shared_bytes": shared}
    return api.Context(kernel=kernel, path=path, launch=launch, base_launch=launch, size_env={"small": {"n": N}})


def test_the_analysis_reads_both_textbook_trees():
    for name, (path, block, shared, form, _) in CASES.items():
        src = parse_source(open(path).read())
        br = block_reduction(src, src.kernels[0])
        assert isinstance(br, BlockReduction), (name, br)
        assert br.form == form, name
    src = parse_source(open(CASES["max_halving"][0]).read())
    assert block_reduction(src, src.kernels[0]).op == "max"


@pytest.mark.parametrize("case", ["stops_early", "odd_block"])
def test_no_shuffles_where_the_tree_is_not_the_whole_block(case):
    if case == "stops_early":
        path, block = os.path.join(TESTS, "trees", "n_partial_tree.cu"), 256
        why = "not a complete tree"
    else:
        path, block = CASES["reduce0"][0], 96
        why = "not a power of two"
    text = open(path).read()
    k = parse_source(text).kernels[0]
    plans, said = api.plans(text, _ctx(path, k.name, block, 0))
    assert "block-tree" not in [p.name for p in plans]
    assert any(w.startswith("tree:") and why in w for w in said), said


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
@pytest.mark.parametrize("name", sorted(CASES))
def test_each_shuffle_rewrite_computes_the_blocks_results(name, tmp_path):
    path, block, shared, form, ref = CASES[name]
    text = open(path).read()
    k = parse_source(text).kernels[0]
    ctx = _ctx(path, k.name, block, shared)
    plans, why = api.plans(text, ctx)
    plan = next((p for p in plans if p.name == "block-tree"), None)
    assert plan is not None, why
    runs = [("as written", text, ctx.launch)] + [(c.description, c.source, c.launch)
                                                 for c in map(plan.build, plan.space)]
    assert runs[1][2]["block"] == [block // 4] if block >= 128 else True  # four values per thread first
    problems = compile_each(path, [(k.name, src, ()) for _, src, _ in runs[1:]], CompileOptions(arch="sm_90"))
    for (what, _, _), problem in zip(runs[1:], problems):
        assert problem is None, f"{what}:\n" + "\n".join(problem)
    batch = Batch([(src, k.name) for _, src, _ in runs], str(tmp_path))
    outs = []
    for i, (what, _, launch) in enumerate(runs):
        rng = np.random.default_rng(5)
        ins = [rng.standard_normal(N).astype(np.float32) for p in k.params if p.is_pointer and p.is_const]
        args, it = [], iter(ins)
        out_idx = None
        for j, p in enumerate(k.params):
            if p.is_pointer and p.is_const:
                args.append(next(it))
            elif p.is_pointer:
                out_idx = j
                args.append(np.zeros(_blocks(block), np.float32))
            else:
                args.append(N)
        got = batch.run(i, args, [_blocks(block)], launch["block"], shared_bytes=int(launch.get("shared_bytes") or 0))
        outs.append(got[out_idx])
        if ref is not None:
            want = ref(ins[0].astype(np.float64))
            assert np.allclose(got[out_idx][:want.size], want, rtol=1e-4, atol=1e-3), what
    for (what, _, _), o in zip(runs[1:], outs[1:]):
        assert np.allclose(o, outs[0], rtol=1e-4, atol=1e-3), what


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
@pytest.mark.parametrize("name", ["sum_literal", "suite_sum"])
def test_an_atomic_total_lets_a_wave_of_blocks_loop_over_the_chunks(name, tmp_path):
    path, block, shared, _, ref = CASES[name]
    text = open(path).read()
    k = parse_source(text).kernels[0]
    ctx = _ctx(path, k.name, block, shared)
    ctx.scalar_params = {p.name: p.name for p in k.params if not p.is_pointer}
    plans, why = api.plans(text, ctx)
    plan = next(p for p in plans if p.name == "block-tree")
    assert plan.space[0].get("waves"), plan.space
    waves = [s for s in plan.space if s.get("waves")]
    assert {s.get("chunks", 1) for s in waves} >= {1, 2, 4}  # old chunks read before they are added: 1, 2 or 4
    cands = [plan.build(s) for s in waves]
    assert all(c.launch["grid"][0].startswith("min(") and "one atomic per block" in c.description for c in cands)
    problems = compile_each(path, [(k.name, c.source, ()) for c in cands], CompileOptions(arch="sm_90"))
    assert problems == [None] * len(cands), problems
    batch = Batch([(c.source, k.name) for c in cands], str(tmp_path))
    rng = np.random.default_rng(5)
    x = rng.standard_normal(N).astype(np.float32)
    for i, c in enumerate(cands):
        for grid in (1, 3, _blocks(block)):  # fewer blocks than chunks: each loops over several (a last step short)
            args = [x if p.is_pointer and p.is_const else np.zeros(1, np.float32) if p.is_pointer else N
                    for p in k.params]
            got = batch.run(i, args, [grid], c.launch["block"])
            out = next(i for i, p in enumerate(k.params) if p.is_pointer and not p.is_const)
            assert np.allclose(got[out], ref(x.astype(np.float64)), rtol=1e-4, atol=1e-3), (c.description, grid)


def test_a_store_per_block_keeps_one_block_per_chunk():
    path, block, shared, _, _ = CASES["reduce0"]
    text = open(path).read()
    k = parse_source(text).kernels[0]
    ctx = _ctx(path, k.name, block, shared)
    ctx.scalar_params = {"n": "n"}
    plans, _ = api.plans(text, ctx)
    plan = next(p for p in plans if p.name == "block-tree")
    assert not any(s.get("waves") for s in plan.space)  # each block's own result: the chunks stay the blocks'


def test_a_serial_tail_with_a_side_effect_in_its_declarations_is_not_split():
    """`if (tid == 0) { int base = atomicAdd(count, n); for (..) ...; }`: moving the declaration before the `if`
    would run the atomic in every thread; a tail under a flag that is not the thread's index is not split either."""
    from kernelpro.optimizer.restructure.passes import split_serial_tail

    text = ("__global__ void k(int* count, int* out, const int* buf, int nloc) {\n  __shared__ int s[256];\n"
            "  s[threadIdx.x] = 1;\n  __syncthreads();\n  if (threadIdx.x == 0) {\n    int base = atomicAdd(count, nloc);\n"
            "    for (int j = 0; j < nloc; j++) out[base + j] = buf[j] + s[j];\n    out[0] = base;\n  }\n}\n")
    assert split_serial_tail(text, "k.cu", "k") is None
    ok = text.replace("int base = atomicAdd(count, nloc);", "int base = 0;")
    assert split_serial_tail(ok, "k.cu", "k") is not None
    assert split_serial_tail(ok.replace("threadIdx.x == 0", "nloc == 0"), "k.cu", "k") is None


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_a_tree_indexed_by_a_cooperative_groups_rank_is_read_and_its_shuffles_compute_the_block_sums(tmp_path):
    """`unsigned tid = block.thread_rank();` with `cg::sync(block)` barriers (blind round I): the rank of a
    one-dimensional block is threadIdx.x, and the tree gets its shuffles; each block's sum as numpy's."""
    path = os.path.join(TESTS, "probe_i", "i20_block_sum_cg.cu")  # (kernel only, as the round wrote it)
    text = open(path).read()
    k = parse_source(text).kernels[0]
    ctx = _ctx(path, k.name, 512, 0)
    ctx.scalar_params = {"n": "n"}
    plans, why = api.plans(text, ctx)
    plan = next((p for p in plans if p.name == "block-tree"), None)
    assert plan is not None, why
    cands = [plan.build(s) for s in plan.space]
    problems = compile_each(path, [(k.name, c.source, ()) for c in cands], CompileOptions(arch="sm_90"))
    assert problems == [None] * len(cands), problems
    batch = Batch([(c.source, k.name) for c in cands], str(tmp_path))
    x = np.random.default_rng(7).standard_normal(N).astype(np.float32)
    want = np.add.reduceat(x.astype(np.float64), np.arange(0, N, 512))
    for i, c in enumerate(cands):
        got = batch.run(i, [x, np.zeros(_blocks(512), np.float32), N], [_blocks(512)], c.launch["block"])
        assert np.allclose(got[1], want, rtol=1e-4, atol=1e-3), c.description
