"""A Lab for benchmarks/run_suite.py's driver without a GPU: SYNTHETIC numbers, never a measurement.

It answers what GpuLab answers, in the same shapes (it uses suite_lab's judge, run_curve and
suite_run.spend on made-up events), from a seeded generator, so the driver (resume, deadline,
merging) and the report can be tested, and tests/fixtures/report/synthetic_results.json made:

    python tests/synthetic_lab.py   # rewrites the fixture
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import run_suite  # noqa: E402
import suite_run  # noqa: E402
from suite_lab import judge, run_curve  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "report" / "synthetic_results.json"
NOTE = ("Made by tests/synthetic_lab.py from a seeded random generator to test the report generator: "
        "every number in this file is invented.")
CEILINGS = {"dram_gbs": 4000.0, "fp32_gflops": 60000.0, "fp16_gflops": 60000.0, "measured": "synthetic",
            "method": "synthetic"}
SIZES = {"small": 1 << 22, "large": 1 << 24}  # elements
RULES = {"narrow-elementwise-access": "work_distribution", "serial-column-loop": "work_distribution",
         "fp64-in-float-kernel": "fp64", "rolled-constant-loop": "loop_unroll", "missing-restrict": "restrict"}


class SyntheticLab:
    def __init__(self, seed: int = 0, impossible: tuple[str, ...] = (), timeout_units: tuple[str, ...] = (),
                 clock=None):
        self.rng = random.Random(seed)
        self.impossible, self.timeout_units = set(impossible), set(timeout_units)
        self.calls: list[str] = []
        self.clock = clock  # a FakeClock the driver reads: each unit advances it by its cost

    def environment(self) -> dict:
        return {"date": "2000-01-01 00:00:00 UTC", "device": {"name": "SYNTHETIC GPU", "sms": 132,
                                                               "compute_capability": "9.0", "l2_bytes": 50 << 20},
                "nvml": {"driver": "synthetic", "cuda_driver": "synthetic"}, "toolkit": {"nvcc": "synthetic"},
                "ceilings": dict(CEILINGS), "versions": {"python": "synthetic"},
                "source": {"commit": "0" * 40, "dirty": False}, "clocks": self.clocks()}

    def clocks(self) -> dict:
        return {"samples": 10, "sm_mhz": {"min": 1000, "median": 1980, "max": 1980},
                "mem_mhz": {"min": 2619, "median": 2619, "max": 2619}, "power_w": {"min": 100, "median": 400, "max": 600}}

    def family_info(self, family: str) -> dict:
        fam = sum(map(ord, family))
        return {"title": f"{family} (synthetic)", "kernel": f"{family}_forward", "largest": "large",
                "sizes": {k: {"n": v} for k, v in SIZES.items()},
                "bytes": {k: 8 * v for k, v in SIZES.items()}, "flops": {k: 2 * v for k, v in SIZES.items()},
                "root_rules": sorted(r for i, r in enumerate(RULES) if (fam + i) % 2 == 0), "rule_tools": dict(RULES)}

    def _measure(self, family: str, factor: float, energy: bool = True) -> dict:
        """Times `factor` x faster than a naive kernel at 20% of the DRAM bandwidth."""
        times = {k: 8 * v / (0.2 * CEILINGS["dram_gbs"] * 1e9) / factor * (1 + self.rng.uniform(-0.01, 0.01))
                 for k, v in SIZES.items()}
        m = {"times_s": times, "rounds_s": {k: [t] * 3 for k, t in times.items()}, "spread": {k: 0.01 for k in times}}
        m.update(judge(times, {k: 8 * v for k, v in SIZES.items()}, {k: 2 * v for k, v in SIZES.items()},
                       CEILINGS, "fp32", False, 50 << 20))
        if energy:
            m["energy_j"] = {"large": 0.08 / factor ** 0.7}
            m["power_w"] = {"large": 400.0}
            m["energy_uncertainty"] = {"large": 0.05}
        return m

    def _tick(self, unit_cost: float) -> None:
        if self.clock is not None:
            self.clock.t += unit_cost

    def baseline(self, family: str) -> dict:
        self.calls.append(f"{family}:baseline")
        self._tick(60)
        best = 4.0 + self.rng.uniform(0, 1)
        rec = {"naive": self._measure(family, 1.0), "best": self._measure(family, best),
               "torch_eager": self._measure(family, best * 0.9, energy=False), "complete": True}
        return rec

    def torch_compile(self, family: str) -> dict:
        self.calls.append(f"{family}:compile")
        self._tick(20)
        if family == "softmax":
            return {"failure": "RuntimeError: synthetic: no compiler for inductor", "complete": True}
        return {**self._measure(family, 4.2, energy=False), "complete": True}

    def peers(self, family: str) -> dict:
        self.calls.append(f"{family}:peers")
        self._tick(30)
        rec = {"torch_max_autotune": self._measure(family, 4.4, energy=False)}
        if family in ("layernorm", "softmax"):
            rec["liger"] = self._measure(family, 4.6, energy=False)
            rec["quack"] = {"absent": "ModuleNotFoundError: No module named 'quack' (synthetic)"}
        return {"peers": rec, "complete": True}

    def run(self, family: str, unit, time_left: float, results: dict) -> dict:
        self.calls.append(str(unit))
        self._tick(120)
        rng = self.rng
        top = {"mcts": 3.0, "greedy": 2.6, "random": 2.0, "llm": 3.2}[unit.strategy] * (1 + rng.uniform(-0.2, 0.2))
        events, best = [{"type": "start"}], 1.0
        n = results.get("config", {}).get("budget", 16)
        for i in range(n):
            s = 1.0 + (top - 1.0) * rng.random() ** 2 if rng.random() > 0.15 else None
            rules = [r for r in RULES if rng.random() < 0.3]
            events.append({"type": "evaluated", "parent": 0, "ok": s is not None, "speedup": s,
                           "kind": rng.choice(["structural", "local", "launch"]), "answers": rules})
            best = max(best, s or 0)
        timed_out = str(unit) in self.timeout_units
        rec = {"objective": unit.objective, "strategy": unit.strategy, "seed": unit.seed, "budget": n,
               "proposer": "llm" if unit.strategy == "llm" else "builtin", "rc": 124 if timed_out else 0,
               "search_wall_s": 100.0, "spend": suite_run.spend(events), "curve": run_curve(events),
               "complete": not timed_out, "evaluations": n, "failures": sum(1 for e in events[1:] if not e["ok"]),
               "stopped_by": "evaluations", "path": ["synthetic step"], "best_candidate": "synthetic step",
               "search_speedup": best,
               "attempts": [{"answers": e["answers"], "outcome": "improved" if e["ok"] and e["speedup"] > 1.02 else
                             ("neutral" if e["ok"] else "incorrect"), "speedup": e["speedup"], "origin": "builtin:x",
                             "description": "synthetic"} for e in events[1:]],
               "best_description": "synthetic: a made-up candidate",
               "optimized_source": {"cu": "// synthetic\n", "spec": "# synthetic\n", "sha": "0" * 16}}
        if timed_out:
            return rec
        # the re-measurement differs from the search's number, as it does on a GPU
        factor = best * 0.95 if family not in self.impossible else 50.0
        rec["measured"] = {"naive": self._measure(family, 1.0), "optimized": self._measure(family, factor)}
        if unit.objective == "energy":
            rec["measured"]["time_best"] = self._measure(family, factor * 1.005)
            rec["measured"]["optimized"]["energy_j"]["large"] *= 0.9
        return rec

    def close(self) -> None:
        pass


class FakeClock:
    def __init__(self):
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def make_fixture(out: Path = FIXTURE) -> dict:
    """The committed fixture: three families, every strategy, two seeds, one energy run; one impossible result."""
    import tempfile

    cfg = run_suite.Config(budget=8)
    fams = ["gelu", "layernorm", "softmax"]
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d) / "r.json"
        results = run_suite.load_results(tmp, cfg)
        clock = FakeClock()
        lab = SyntheticLab(seed=7, impossible=("softmax",), clock=clock)
        units = run_suite.units_for(fams, ["mcts", "greedy", "random"], [0, 1], "time", compile_=True,
                                    energy_families=tuple(fams[:2]))
        run_suite.drive(lab, units, results, tmp, cfg, None, clock=clock, log=lambda *a, **k: None)
        data = json.loads(tmp.read_text())
    data["synthetic"] = True
    data["WARNING"] = "SYNTHETIC TEST DATA, NOT A MEASUREMENT"
    data["note"] = NOTE
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return data


if __name__ == "__main__":
    make_fixture()
    print(f"wrote {FIXTURE}")
