"""Knob spaces ordered for every size of the spec (api.per_size_order): a search that tries the first few tile
settings has one that fills the GPU at each size, so the per-size dispatch has something to pick."""
from __future__ import annotations

import os
import tomllib

from kernelpro.optimizer.restructure import api
from kernelpro.profilers.source import parse_source

SUITE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks", "suite")


def test_each_size_s_best_comes_in_turn_and_every_setting_once():
    a = [{"t": 1}, {"t": 2}, {"t": 3}]
    b = [{"t": 4}, {"t": 1}, {"t": 5}]
    assert api.per_size_order([a, b]) == [{"t": 1}, {"t": 4}, {"t": 2}, {"t": 3}, {"t": 5}]
    assert api.per_size_order([a]) == a and api.per_size_order([]) == []


def _plans(family: str, sizes: dict | None = None):
    path = os.path.join(SUITE, family, "naive.cu")
    spec = tomllib.loads(open(os.path.join(SUITE, family, "naive.kernelpro.toml")).read())
    k = parse_source(open(path).read()).kernels[0]
    ctx = api.Context(kernel=k.name, path=path, launch=spec["launch"], base_launch=spec["launch"],
                      size_env=sizes or spec["sizes"], arch="sm_90",
                      scalar_params={q.name: q.name for q in k.params if not q.is_pointer})
    return {p.name: p for p in api.plans(open(path).read(), ctx)[0]}


def test_the_medium_product_gets_a_tile_that_fills_the_gpu_among_the_first_settings():
    big = {"large": {"M": 4096, "N": 4096, "K": 4096}}
    both = dict(big, medium={"M": 1024, "N": 1024, "K": 1024})
    alone = _plans("gemm_fp32", big)["matmul-tiles"].space
    mixed = _plans("gemm_fp32", both)["matmul-tiles"].space
    assert mixed[0] == alone[0]  # the largest size's best first
    blocks = lambda s: -(-1024 // s["bm"]) * -(-1024 // s["bn"])  # noqa: E731  (tiles at 1024^2, 132 SMs)
    assert blocks(alone[0]) < 132 and blocks(mixed[1]) >= 128, (alone[0], mixed[1])
    assert len(mixed) >= len(alone) and all(s in mixed for s in alone)
