"""Energy arithmetic from NVML counter samples: recorded fixtures (tests/fixtures/nvml/*.json,
recorded on the GPU machine with `python -m kernelpro.profilers.runtime.energy --record OUT.json`)
and a synthetic one constructed by hand."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelpro.profilers.runtime.energy import energy_from_samples

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "nvml").glob("*.json"))


def test_there_is_a_fixture():
    assert any(p.name == "synthetic_400w.json" for p in FIXTURES)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture(path):
    d = json.loads(path.read_text())
    r = energy_from_samples(d["samples"], d.get("idle_w"))
    want = d.get("result") or d["expected"]  # recorded: the result computed at recording time
    assert r["energy_uj"] == pytest.approx(want["energy_uj"], rel=0.01)
    assert r["avg_power_w"] == pytest.approx(want["avg_power_w"], rel=0.01)
    # physics: a busy GPU draws more than idle and less than any board limit
    if d.get("idle_w"):
        assert d["idle_w"] * 0.8 < r["avg_power_w"] < 1500
    assert r["launches"] > 0 and r["duration_s"] >= 1.0
    assert r["energy_uj"] == pytest.approx(r["avg_power_w"] * r["time_per_launch_s"] * 1e6, rel=1e-6)
    h = r["halves_j"]
    assert len(h) == 2 and abs(h[0] - h[1]) / r["energy_j"] < 0.05
    assert 0 < r["uncertainty"] < 0.25


def _synthetic(power_w, period_s, batch_s, batch_n, seconds, offset=0.03):
    """Counter in mJ stepping every period_s; a batch of batch_n launches every batch_s."""
    samples, t, n = [[0.0, 1000.0, 0, power_w * 1000]], 0.0, 0
    while t < seconds:
        t += batch_s
        n += batch_n
        steps = int((t - offset) / period_s) if t > offset else 0
        e = 1000.0 + power_w * 1000 * (offset + steps * period_s) if steps else 1000.0
        samples.append([t, e, n, power_w * 1000])
    return samples


def test_constant_power_gives_exact_energy_per_launch():
    r = energy_from_samples(_synthetic(300.0, 0.1, 0.01, 20, 2.0))
    assert r["energy_uj"] == pytest.approx(300.0 * 0.01 / 20 * 1e6, rel=0.01)
    assert r["avg_power_w"] == pytest.approx(300.0, rel=0.01)
    assert r["counter_period_s"] == pytest.approx(0.1, rel=0.02)
    # one counter step relative to the total, plus the halves' disagreement (one batch at each end)
    step = 0.1 / r["duration_s"]
    assert step <= r["uncertainty"] <= step + 0.03


def test_two_few_steps_is_an_error():
    with pytest.raises(ValueError, match="fewer than twice"):
        energy_from_samples(_synthetic(300.0, 1.0, 0.01, 20, 1.2))


def test_no_energy_counter_integrates_power():
    samples = [[t * 0.01, None, t * 10, 250_000.0] for t in range(0, 201)]
    r = energy_from_samples(samples, 100.0)
    assert r["method"] == "power samples"
    assert r["avg_power_w"] == pytest.approx(250.0)
    assert r["energy_uj"] == pytest.approx(250.0 * 0.001 * 1e6)
