"""Roofline fractions and verdicts (pure), and the dynamic advice built from a run."""
from __future__ import annotations

import pytest

from kernelpro.profilers.runtime.roofline import analyze, uses_tensor_cores

CEIL = {"dram_gbs": 4000.0, "fp32_gflops": 60000.0, "fp16_gflops": 120000.0}


def test_memory_bound():
    r = analyze(bytes_moved=3_000_000_000, flops=None, time_s=1e-3, ceilings=CEIL)  # 3000 GB/s
    assert r.bandwidth_gbs == pytest.approx(3000.0) and r.bw_fraction == pytest.approx(0.75)
    assert r.verdict == r.bound == "memory-bound" and not r.impossible and r.gflops is None


def test_compute_bound_and_the_larger_fraction_wins():
    r = analyze(bytes_moved=2_400_000_000, flops=50_000_000_000, time_s=1e-3, ceilings=CEIL)
    assert r.bw_fraction == pytest.approx(0.6) and r.flop_fraction == pytest.approx(50 / 60)
    assert r.verdict == "compute-bound"


def test_latency_bound_below_both_thresholds():
    r = analyze(bytes_moved=1_000_000_000, flops=1_000_000_000, time_s=1e-3, ceilings=CEIL)
    assert r.verdict == "latency-bound" and "neither" in r.note


def test_thresholds_are_inclusive():
    assert analyze(2_400_000_000, None, 1e-3, CEIL).verdict == "memory-bound"  # exactly 0.6
    assert analyze(2_399_000_000, None, 1e-3, CEIL).verdict == "latency-bound"


def test_impossible_bandwidth_is_flagged():
    r = analyze(bytes_moved=5_000_000_000, flops=None, time_s=1e-3, ceilings=CEIL)  # 1.25x DRAM
    assert r.impossible and r.verdict == "impossible" and r.bound == "memory-bound"
    assert "1.25x" in r.note
    assert not analyze(4_300_000_000, None, 1e-3, CEIL).impossible  # 1.075x: within the margin


def test_impossible_flops_unless_tensor_cores():
    r = analyze(1_000_000, 90_000_000_000, 1e-3, CEIL)  # 1.5x the FP32 FMA peak
    assert r.impossible
    t = analyze(1_000_000, 90_000_000_000, 1e-3, CEIL, tensor_cores=True)
    assert not t.impossible and t.verdict == "compute-bound"


def test_fp16_uses_the_half_ceiling():
    r = analyze(None, 90_000_000_000, 1e-3, CEIL, precision="fp16")
    assert r.flop_fraction == pytest.approx(0.75) and not r.impossible


def test_bad_time():
    with pytest.raises(ValueError):
        analyze(1, 1, 0.0, CEIL)


def test_tensor_core_opcodes():
    assert uses_tensor_cores(["FFMA", "HMMA.16816.F32"]) and uses_tensor_cores(["HGMMA"])
    assert not uses_tensor_cores(["FFMA", "LDG.E.128", "HFMA2"])


def _spec():
    from pathlib import Path

    from kernelpro.profilers.runtime.spec import load_spec

    return load_spec(Path(__file__).resolve().parents[1] / "examples" / "gpu" / "vecadd.kernelpro.toml")


def test_rows_and_advice_from_a_run():
    from kernelpro.profilers.runtime.measure import dynamic_advice, rows_and_verdicts
    from kernelpro.profilers.runtime.worker import RunResult, SizeResult

    res = RunResult(ok=True, sizes=[
        SizeResult("small", True, 10e-6, 0.01, [10e-6] * 20, {"ok": True, "max_rel": 0.0}, 12_000_036, 1_000_003),
        SizeResult("large", True, 250e-6, 0.08, [250e-6] * 20, {"ok": True, "max_rel": 1e-7}, 805_306_368, 67_108_864)],
        energy={"large": {"energy_uj": 150.0, "avg_power_w": 600.0, "uncertainty": 0.07, "idle_w": 140.0}})
    rows, verdicts = rows_and_verdicts(_spec(), res, CEIL)
    assert [r["size"] for r in rows] == ["small", "large"]
    big = rows[1]
    assert big["bandwidth_gbs"] == pytest.approx(805_306_368 / 250e-6 / 1e9)
    assert big["bound"] == "memory-bound" and big["energy_uj"] == 150.0 and big["max_rel_err"] == 1e-7
    assert rows[0]["bound"] == "latency-bound"  # 1.2 TB/s
    adv = dynamic_advice(_spec(), res, verdicts, "/x/vecadd.cu", 2)
    roof = [a for a in adv if a.rule == "roofline"]
    assert len(roof) == 1 and "size large" in roof[0].message and "memory-bound" in roof[0].message
    assert any(e.name == "energy per launch" for e in roof[0].evidence)
    assert [a.rule for a in adv if a.rule == "timing-noisy"] == ["timing-noisy"]  # 8% spread at large


def test_advice_for_failures():
    from kernelpro.profilers.runtime.measure import dynamic_advice
    from kernelpro.profilers.runtime.worker import RunResult, SizeResult

    bad = RunResult(ok=False, failure="wrong result at size small: 1 element unwritten",
                    sizes=[SizeResult("small", False, check={"ok": False, "unwritten": 1, "max_abs": float("nan")})])
    a = dynamic_advice(_spec(), bad, {}, "/x/vecadd.cu", 2)
    assert [x.rule for x in a] == ["wrong-result"] and a[0].severity.value == "error"
    assert [e.name for e in a[0].evidence] == ["unwritten"]
    hang = RunResult.failed("timeout: kernel did not finish within 60 s")
    h = dynamic_advice(_spec(), hang, {}, "/x/vecadd.cu", 2)
    assert h[0].rule == "run-failed" and "never finished" in h[0].remedy
