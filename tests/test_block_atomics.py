"""Atomics every thread of a block aims at one address (profilers/analysis/atomics.py,
optimizer/restructure/aggregate.py): a grid-stride sum's final atomicAdd, a conditional count, a
per-block atomicMax, a dot product. Each becomes one atomic per block after warp shuffles, compiled with
nvcc and run in the CPU emulator against numpy at sizes off the block; a histogram (an address per
thread) gets none and says why."""
from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

from compile_batch import compile_each
from emu_run import Batch

from kernelpro.optimizer.restructure import api
from kernelpro.profilers.compile import CompileOptions
from kernelpro.profilers.source import parse_source, walk

TESTS = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(os.path.dirname(TESTS), "benchmarks", "suite", "sum")
GXX = shutil.which("g++")
N, B = 1000 - 3, 128
G = -(-N // B)


def _case(name):
    rng = np.random.default_rng(9)
    x, y = rng.standard_normal(N).astype(np.float32), rng.standard_normal(N).astype(np.float32)
    keys = rng.integers(-10**6, 10**6, N).astype(np.int32)
    return {  # name -> (path, grid, args, output index, reference)
        "naive_grid": (os.path.join(SUITE, "naive_grid.cu"), 3, [np.zeros(1, np.float32), x, N], 0,
                       np.array([x.astype(np.float64).sum()])),
        "count_above": (os.path.join(TESTS, "atomics", "count_above.cu"), G,
                        [x, np.zeros(1, np.int32), 0.25, N], 1, np.array([(x > 0.25).sum()])),
        "block_max": (os.path.join(TESTS, "atomics", "block_max.cu"), G,
                      [keys, np.full(G, -2**31, np.int32), N], 1,
                      np.array([keys[b * B:(b + 1) * B].max() for b in range(G)])),
        "dot_atomic": (os.path.join(TESTS, "atomics", "dot_atomic.cu"), G, [x, y, np.zeros(1, np.float32), N], 2,
                       np.array([(x.astype(np.float64) * y).sum()])),
    }[name]


def test_a_histogram_keeps_its_atomics_and_says_why():
    path = os.path.join(TESTS, "atomics", "n_histogram.cu")
    text = open(path).read()
    launch = {"grid": [f"cdiv(n, {B})"], "block": [B]}
    plans, why = api.plans(text, api.Context(kernel="histogram", path=path, launch=launch, base_launch=launch,
                                             size_env={}))
    assert "block-atomic" not in [p.name for p in plans]
    assert any(w.startswith("aggregate:") and "different addresses" in w for w in why), why


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
@pytest.mark.parametrize("name", ["naive_grid", "count_above", "block_max", "dot_atomic"])
def test_one_atomic_per_block_gives_the_same_result(name, tmp_path):
    path, grid, args, out, want = _case(name)
    text = open(path).read()
    k = parse_source(text).kernels[0]
    launch = {"grid": [str(grid)], "block": [B]}
    plans, why = api.plans(text, api.Context(kernel=k.name, path=path, launch=launch, base_launch=launch,
                                             size_env={}))
    plan = next((p for p in plans if p.name == "block-atomic"), None)
    assert plan is not None, why
    c = plan.build(plan.space[0])
    assert c.source.count("atomic") >= 1 and "kp_block_allreduce" in c.source
    (problem,) = compile_each(path, [(k.name, c.source, ())], CompileOptions(arch="sm_90"))
    assert problem is None, "\n".join(problem)
    batch = Batch([(text, k.name), (c.source, k.name)], str(tmp_path))
    for i in range(2):
        got = batch.run(i, [a.copy() if isinstance(a, np.ndarray) else a for a in args], [grid], [B])[out]
        assert np.allclose(got.astype(np.float64), want, rtol=1e-4, atol=1e-3), (i, got[:4], want[:4])


def test_an_index_clamped_by_ifs_is_not_the_same_for_every_thread():
    """`int b = (int)(v[i] * nbins); if (b >= nbins) b = nbins - 1; if (b < 0) b = 0;` leaves b one of several values
    (the analysis once read it as the last assignment, 0: the same address for every thread, and offered one
    atomic per block, which would have summed every bin into one)."""
    from kernelpro.profilers.analysis.affine import build_env
    from kernelpro.profilers.analysis.atomics import uniform_atomics

    text = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "probe27", "hist_clamped_bins.cu")).read()
    src = parse_source(text)
    k = src.kernels[0]
    got = uniform_atomics(src, k)
    assert not hasattr(got, "calls") and "different addresses" in got.reason, got
    call = next(n for n in walk(k.body) if n.type == "call_expression")
    assert build_env(src, k).values_at(call.start_byte).get("b", "unset") is None  # unknown, not 0


def test_an_address_that_moves_with_a_loop_gets_no_combined_atomic():
    """`for (r ...) atomicAdd(&s[r], ...)`: one address per iteration, not one per block (the block plan once
    combined every iteration into the last address)."""
    text = """__global__ void k(const float* x, float* s, int n, int R) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) for (int r = 0; r < R; ++r) atomicAdd(&s[r], x[i] * r);
}
"""
    launch = {"grid": ["cdiv(n, 128)"], "block": [128]}
    plans, why = api.plans(text, api.Context(kernel="k", path="k.cu", launch=launch, base_launch=launch, size_env={}))
    assert not {"block-atomic", "warp-atomic"} & {p.name for p in plans}
    assert any(w.startswith("aggregate:") and "moves while a thread runs" in w for w in why), why


ROWS = """__global__ void rowred(const float* A, float* s, int* m, int M, int N) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && j < N) {
    atomicAdd(&s[i], A[i * N + j]);
  }
}
"""


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
@pytest.mark.parametrize("bx,by", [(32, 8), (64, 4)])
def test_an_address_shared_by_a_warps_lanes_gets_one_atomic_per_warp(bx, by, tmp_path):
    """Row sums by one atomic per element on a 2-D grid (tests/probe27/rowsum_2d_atomic.cu's kind): the address
    varies with threadIdx.y only, so each warp combines first; the emulator agrees with numpy at sizes off the
    block (partial warps at the right edge, rows past M)."""
    M, N = 37, 101
    grid = [-(-N // bx), -(-M // by)]
    launch = {"grid": [str(g) for g in grid], "block": [bx, by]}
    plans, why = api.plans(ROWS, api.Context(kernel="rowred", path="r.cu", launch=launch, base_launch=launch,
                                             size_env={}))
    plan = next((p for p in plans if p.name == "warp-atomic"), None)
    assert plan is not None, why
    c = plan.build(plan.space[0])
    assert c.source.count("atomicAdd(") == 1 and "kp_warp_allreduce" in c.source and "__ballot_sync" in c.source
    p = tmp_path / "r.cu"
    p.write_text(ROWS)
    (problem,) = compile_each(str(p), [("rowred", c.source, ())], CompileOptions(arch="sm_90"))
    assert problem is None, "\n".join(problem)
    A = np.random.default_rng(3).standard_normal((M, N)).astype(np.float32)
    batch = Batch([(ROWS, "rowred"), (c.source, "rowred")], str(tmp_path))
    for i in range(2):
        got = batch.run(i, [A, np.zeros(M, np.float32), np.zeros(1, np.int32), M, N], grid, [bx, by])[1]
        assert np.allclose(got, A.astype(np.float64).sum(1), rtol=1e-4, atol=1e-3), i


def test_a_warp_spanning_rows_gets_no_warp_atomic_and_says_why():
    launch = {"grid": ["7", "5"], "block": [16, 16]}
    plans, why = api.plans(ROWS, api.Context(kernel="rowred", path="r.cu", launch=launch, base_launch=launch,
                                             size_env={}))
    assert "warp-atomic" not in {p.name for p in plans}
    assert any("blockDim.x (16) is not a multiple of 32" in w for w in why), why
