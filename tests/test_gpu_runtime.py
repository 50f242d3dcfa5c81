"""On a real GPU (skipped without one): failures are contained, timing and energy repeat, the
ceilings are plausible, correctness catches a planted bug. The kernels are in examples/gpu/."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kernelpro.profilers.compile import CompileOptions
from kernelpro.profilers.runtime.worker import WorkerPool

pytestmark = pytest.mark.gpu

GPU = Path(__file__).resolve().parents[1] / "examples" / "gpu"


@pytest.fixture(scope="module", autouse=True)
def _need_gpu():
    from kernelpro.profilers.runtime.measure import gpu_problem

    problem = gpu_problem()
    if problem:
        pytest.skip(f"no GPU: {problem}")


@pytest.fixture(scope="module")
def pool():
    p = WorkerPool(timeout_s=60)
    yield p
    p.close()


def _eval(pool, name, **kw):
    from kernelpro.profilers.runtime.measure import evaluate
    from kernelpro.profilers.runtime.spec import load_spec

    spec = load_spec(GPU / f"{name}.kernelpro.toml")
    return evaluate(GPU / f"{name}.cu", spec, CompileOptions(), pool=pool, **kw)


def test_correct_kernel_passes_at_every_size(pool):
    r = _eval(pool, "vecadd", timing=False)
    assert r.ok, r.failure
    assert [s.size for s in r.sizes] == ["small", "large"] and all(s.check["ok"] for s in r.sizes)


def test_illegal_address_fails_and_the_pool_recovers(pool):
    r = _eval(pool, "illegal_address", timing=False)
    assert not r.ok
    assert r.failure.startswith("crash: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered"), r.failure
    ok = _eval(pool, "vecadd", timing=False, sizes=["small"])
    assert ok.ok, ok.failure


def test_never_ending_kernel_times_out_and_the_pool_recovers(pool):
    r = _eval(pool, "never_ends", timing=False, timeout_s=10)
    assert not r.ok and r.failure == "timeout: kernel did not finish within 10 s"
    ok = _eval(pool, "vecadd", timing=False, sizes=["small"])
    assert ok.ok, ok.failure


def test_planted_wrong_kernel_is_caught(pool):
    r = _eval(pool, "skip_last_block", timing=False)
    assert not r.ok and r.failure.startswith("wrong result at size small"), r.failure
    assert r.sizes[0].check["unwritten"] == 1000003 - 3906 * 256


def test_timing_repeats(pool):
    a = _eval(pool, "vecadd", sizes=["large"])
    b = _eval(pool, "vecadd", sizes=["large"])
    assert a.ok and b.ok
    ta, tb = a.sizes[0], b.sizes[0]
    assert ta.time_s >= 100e-6, f"the timing kernel should run >= 100 us, ran {ta.time_s * 1e6:.1f} us"
    assert ta.spread < 0.02 and tb.spread < 0.02, (ta.spread, tb.spread)
    assert abs(ta.time_s - tb.time_s) / ta.time_s < 0.02, (ta.time_s, tb.time_s)
    assert len(ta.times) >= 10


def test_energy_repeats(pool):
    a = _eval(pool, "vecadd", sizes=["large"], energy=True)
    b = _eval(pool, "vecadd", sizes=["large"], energy=True)
    ea, eb = a.energy["large"], b.energy["large"]
    assert "error" not in ea and "error" not in eb, (ea, eb)
    assert abs(ea["energy_uj"] - eb["energy_uj"]) / ea["energy_uj"] < 0.05, (ea["energy_uj"], eb["energy_uj"])
    assert ea["avg_power_w"] > ea["idle_w"] and ea["duration_s"] >= 1.0
    # the energy run's time per launch (no L2 flush) is close to the timed median
    assert 0.5 < ea["time_per_launch_s"] / a.sizes[0].time_s < 1.5


def test_ceilings_are_plausible(pool, tmp_path, monkeypatch):
    from kernelpro.profilers.runtime.ceilings import cache_path, get_ceilings

    monkeypatch.setenv("KERNELPRO_CACHE_DIR", str(tmp_path))
    c = get_ceilings(pool, refresh=True)
    name = c["device"]["name"]
    if "H200" in name or "H100" in name:
        assert 2000 < c["dram_gbs"] < 5000, c
        assert 20_000 < c["fp32_gflops"] < 100_000, c
    assert c["fp16_gflops"] > c["fp32_gflops"]
    assert cache_path(c["device"]).is_file()
    assert get_ceilings(pool) == json.loads(cache_path(c["device"]).read_text())


def test_bench_command_end_to_end(tmp_path):
    env = dict(os.environ, KERNELPRO_CACHE_DIR=str(tmp_path))
    p = subprocess.run([sys.executable, "-m", "kernelpro.profilers.cli", "bench", str(GPU / "vecadd.cu"), "--json"],
                       capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    rows = out["measured"]
    assert [r["size"] for r in rows] == ["small", "large"]
    big = rows[1]
    assert big["energy_uj"] > 0 and big["power_w"] > 0, big
    # a one-element-per-thread add reaches ~60-80% of the copy ceiling: memory-bound, never "impossible"
    assert big["bound"] in ("memory-bound", "latency-bound") and 0.3 < big["bw_fraction"] <= 1.1, big
